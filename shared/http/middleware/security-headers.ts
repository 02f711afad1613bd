import httpSecurityHeaders from '@middy/http-security-headers';

/**
 * helmet's defaults, as @middy/http-security-headers applies them (HSTS, nosniff, no referrer,
 * and for HTML a strict CSP, frame and cross-origin policies), less what has no place here:
 * - `Server`/`X-Powered-By` removal writes undefined values, and nothing of ours sets them;
 * - `Reporting-Endpoints`, `Report-To` and the XSS auditor's `report=` name report endpoints
 *   this service does not have, and browsers dropped the XSS auditor (OWASP: leave it unset);
 * - HSTS `preload` asks browsers to hard-code the operator's domain: their decision, not ours.
 * The docs page sends its own CSP (shared/docs/page.ts), which wins (header-case.ts).
 */
const OPTIONS = {
  poweredBy: false,
  reportingEndpoints: false,
  reportTo: false,
  xssProtection: false,
  strictTransportSecurity: { maxAge: 180 * 24 * 60 * 60, includeSubDomains: true, preload: false },
};

export const securityHeaders = () => httpSecurityHeaders(OPTIONS);
