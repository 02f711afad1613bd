import type { S3Client } from '@aws-sdk/client-s3';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { dataDir, onebotBucket, settings } from '../../config';
import { BOUNDED_HTTP, inTime } from '../../invocation';
import { loadOnce } from '../../load-once';

/**
 * Where bodies too big for a record or a queue message are kept whole: the S3 bucket
 * `ONEBOT_BUCKET` in AWS, the data directory (`DATA_DIR`, default `.data`) locally. A location
 * is `s3://bucket/key` or `file:<key>` (relative to the data directory). The S3 client is loaded
 * on first use: most events fit a record, and the receiver's cold start should not pay for it
 * (issue 24; a chunk of its own, infra/esbuild-options.ts).
 */
let s3: S3Client | undefined;
const s3Api = loadOnce(() => import('@aws-sdk/client-s3'));

async function s3Client(): Promise<S3Client> {
  const { S3Client } = await s3Api();
  s3 ??= new S3Client({ region: settings().AWS_REGION, requestHandler: BOUNDED_HTTP });
  return s3;
}

/**
 * The key prefix of each kind of blob, so the bucket's lifecycle (infra/onebot-queue.ts) can give
 * each its own lifetime: an event's body lives as long as the record that points at it; a kept
 * delivery's only as long as a queue message can point at it.
 */
export const BLOB_PREFIXES = { events: 'onebot-events/', deliveries: 'onebot-deliveries/' } as const;

/** Writes `bytes` under `key` and returns its location; the local file appears whole or not at all. */
export async function putBlob(key: string, bytes: Buffer): Promise<string> {
  const bucket = onebotBucket();
  if (bucket) {
    const { PutObjectCommand } = await s3Api();
    await (await s3Client()).send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentType: 'application/json' }), inTime());
    return `s3://${bucket}/${key}`;
  }
  const path = join(dataDir(), key);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, bytes, { flush: true });
  await rename(`${path}.tmp`, path);
  return `file:${key}`;
}

export async function getBlob(location: string): Promise<Buffer> {
  const s3Location = /^s3:\/\/([^/]+)\/(.+)$/.exec(location);
  if (s3Location) {
    const { GetObjectCommand } = await s3Api();
    const object = await (await s3Client()).send(new GetObjectCommand({ Bucket: s3Location[1], Key: s3Location[2] }), inTime());
    return Buffer.from(await object.Body!.transformToByteArray());
  }
  if (location.startsWith('file:')) return readFile(join(dataDir(), location.slice(5)));
  throw new Error(`not a blob location: ${location}`);
}
