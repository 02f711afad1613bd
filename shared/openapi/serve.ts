import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Operation } from '../contract';
import { jsonTextResult } from '../answer/respond';

/**
 * The document's file name beside the bundle, defined by the bundler (infra/esbuild-options.ts) for the
 * openapi function only. The document is a pure function of the code, so it is built when bundling
 * and the function never loads the full zod API and its JSON Schema generator (issue 24: cold start).
 */
declare const OPENAPI_DOCUMENT_FILE: string;

let text: Promise<string> | undefined;

// Unbundled (the local server, tests) the document is built in process; the bundler drops this
// branch, and the builder with it.
function documentText(): Promise<string> {
  if (typeof OPENAPI_DOCUMENT_FILE === 'undefined') return import('./text').then((m) => m.openApiDocumentText());
  // Beside the bundle's entry, at the root of the function's code, which Lambda names in LAMBDA_TASK_ROOT.
  return readFile(join(process.env.LAMBDA_TASK_ROOT ?? '.', OPENAPI_DOCUMENT_FILE), 'utf8');
}

/**
 * GET /openapi.json: the document itself, not in an envelope, so tools import it as is. It holds
 * no data, so any origin may fetch it (online editors, Postman's web app).
 */
export const openApiOperation: Operation = async () => {
  text ??= documentText().catch((error) => {
    text = undefined;
    throw error;
  });
  return jsonTextResult(200, await text, { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
};
