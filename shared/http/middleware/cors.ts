import httpCors from '@middy/http-cors';
import { ROUTES } from '../../manifest/routes';

/**
 * CORS for the browser origins in CORS_ORIGINS (shared/config.ts), answered by the functions
 * and not by API Gateway's own CORS setting, so that the local server, the artifact tests and
 * AWS answer alike (docs/decisions.md). A preflight (OPTIONS) matches no route key and reaches
 * the `$default` function, which answers it 204 before any token is asked for: browsers send
 * none with it.
 */
export const cors = (origins: string[]) =>
  httpCors({
    origins,
    disableBeforePreflightResponse: false,
    methods: [...new Set(ROUTES.map((r) => r.method))].join(', '),
    // If-Match and If-None-Match make a write conditional (docs/record-api.md, "Preconditions").
    headers: 'authorization, content-type, idempotency-key, if-match, if-none-match',
    // A browser client needs these to retry (503), to tell a missing token from a weak one (401/403) and a replayed answer from a first one, and to read the ETag its next write's If-Match sends.
    exposeHeaders: 'retry-after, www-authenticate, idempotent-replayed, etag',
    // Each preflight is an invocation; browsers cap this at 2 h (Chromium) or 24 h (Firefox).
    maxAge: 7200,
  });
