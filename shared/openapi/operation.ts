import type { Operation } from '../http/middleware';
import { jsonResult } from '../http/respond';
import { buildOpenApiDocument, type OpenApiDocument } from './document';

let document: OpenApiDocument | undefined;

/**
 * GET /openapi.json: the document itself, not in an envelope, so tools import it as is. It holds
 * no data, so any origin may fetch it (online editors, Postman's web app).
 */
export const openApiOperation: Operation = async () => {
  document ??= buildOpenApiDocument();
  return jsonResult(200, document, { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
};
