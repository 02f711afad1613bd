import type { HttpRequest } from '../../contract';

/**
 * One name per answer header, lower-case as HTTP/2 sends them. Our own answers use lower-case
 * names; the middy packages write `X-Content-Type-Options` style. Where both set a header the
 * operation's value wins over the package default (the docs page's CSP over the strict default,
 * `/openapi.json`'s `access-control-allow-origin: *` over CORS_ORIGINS); a case-twin pair
 * would otherwise reach the client as two headers, and two CSPs both apply.
 */
function lowerCaseNames(request: HttpRequest): void {
  const headers = request.response && 'headers' in request.response ? request.response.headers : undefined;
  if (!headers) return;
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === name) continue;
    if (!(lower in headers)) headers[lower] = headers[name];
    delete headers[name];
  }
}

export const lowerCaseResponseHeaders = () => ({ after: lowerCaseNames, onError: lowerCaseNames });
