import { readFileSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { Checkpoint } from '../../shared/feed/stream/read';

/**
 * Where the local feed poller has read the table's stream to: `feed-checkpoint.json` in DATA_DIR,
 * beside the embedded engine's data (and there too when DYNAMODB_ENDPOINT names DynamoDB Local).
 * Not an item in the table: writing the checkpoint there would itself be a stream record, which
 * the poller would read and checkpoint again, ten times a second for ever.
 */
export const checkpointFile = (dataDir: string): string => join(dataDir, 'feed-checkpoint.json');

const stored = z.object({ streamArn: z.string(), shards: z.record(z.string(), z.string()) });

/** The checkpoint kept for this stream; none (read from the start) for a stream this file does not name, as after the table was made again. */
export function readCheckpoint(file: string, streamArn: string): Checkpoint {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const kept = stored.parse(JSON.parse(text));
  return kept.streamArn === streamArn ? kept.shards : {};
}

/**
 * Replaces the checkpoint durably: a new file written and flushed, renamed over the old one, the
 * folder flushed. A kill -9 or a power cut leaves the old checkpoint or the new one, never a torn
 * one, and never a checkpoint ahead of what was handled (it is written after). The flushes wait
 * off the event loop: the server's requests go on meanwhile, where a synchronous fsync after
 * every batch held each of them up.
 */
export async function writeCheckpoint(file: string, streamArn: string, shards: Checkpoint): Promise<void> {
  const next = `${file}.next`;
  const handle = await open(next, 'w');
  try {
    await handle.writeFile(JSON.stringify({ streamArn, shards }));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(next, file);
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
