import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { docsAssetsDir } from '../config';
import type { HttpResult } from '../contract';

/**
 * The files of the swagger-ui-dist package the docs page loads, with their types. They are the
 * only names read from disk, so no request path ever reaches the file system. The CDK bundle
 * copies exactly these into `docs-assets/`.
 */
export const PACKAGE_ASSETS = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
} as const;

export type PackageAsset = keyof typeof PACKAGE_ASSETS;

/** The page's own start-up script: generated, served from memory beside the package files. */
export const INIT_SCRIPT = 'recordgate-docs.js';

export const DOCS_ASSET_NAMES: ReadonlyArray<string> = [...Object.keys(PACKAGE_ASSETS), INIT_SCRIPT];

export const isPackageAsset = (name: string): name is PackageAsset => Object.hasOwn(PACKAGE_ASSETS, name);

/** Where the files are: the Lambda bundle's copy (DOCS_ASSETS_DIR), else the installed package. */
export function assetsDir(): string {
  return docsAssetsDir() ?? dirname(require.resolve('swagger-ui-dist/package.json'));
}

const TEXT = /^text\//;
const cache = new Map<string, Buffer>();

function memo(key: string, make: () => Buffer): Buffer {
  let value = cache.get(key);
  if (!value) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

/**
 * One file as a Lambda answer. Text is gzipped when the client accepts it: the bundle is 1.7 MB
 * and API Gateway's HTTP API does not compress. Files never change while a container lives,
 * so each is read and compressed once, and browsers may keep it for a day.
 */
export function fileResult(name: string, contentType: string, read: () => Buffer, acceptEncoding = ''): HttpResult {
  const headers = { 'content-type': contentType, 'cache-control': 'public, max-age=86400', vary: 'accept-encoding' };
  const raw = () => memo(name, read);
  const gzip = TEXT.test(contentType) && /\bgzip\b/.test(acceptEncoding);
  const body = gzip ? memo(`${name}.gz`, () => gzipSync(raw())) : raw();
  return {
    statusCode: 200,
    headers: gzip ? { ...headers, 'content-encoding': 'gzip' } : headers,
    body: body.toString('base64'),
    isBase64Encoded: true,
  };
}

export const readPackageAsset = (name: PackageAsset): Buffer => readFileSync(join(assetsDir(), name));
