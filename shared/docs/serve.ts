import { ApiError } from '../errors';
import type { Operation } from '../contract';
import { fileResult, INIT_SCRIPT, isPackageAsset, PACKAGE_ASSETS, readPackageAsset } from './assets';
import { DOCS_CSP, DOCS_INIT_SCRIPT, DOCS_PAGE } from './page';

/** GET /docs: the page. GET /docs/{asset}: one of its files, by an allow-listed name only. */
export const docsOperation: Operation = async ({ params, headers }) => {
  const asset = params.asset;
  if (asset === undefined) {
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': DOCS_CSP },
      body: DOCS_PAGE,
    };
  }
  const encoding = headers['accept-encoding'];
  if (asset === INIT_SCRIPT) return fileResult(asset, 'text/javascript; charset=utf-8', () => Buffer.from(DOCS_INIT_SCRIPT), encoding);
  if (isPackageAsset(asset)) return fileResult(asset, PACKAGE_ASSETS[asset], () => readPackageAsset(asset), encoding);
  throw new ApiError('route_not_found', `No documentation file ${JSON.stringify(asset)}`);
};
