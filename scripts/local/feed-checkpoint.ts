import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
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
 * one, and never a checkpoint ahead of what was handled (it is written after).
 */
export function writeCheckpoint(file: string, streamArn: string, shards: Checkpoint): void {
  const next = `${file}.next`;
  const fd = openSync(next, 'w');
  try {
    writeSync(fd, JSON.stringify({ streamArn, shards }));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(next, file);
  const dir = openSync(dirname(file), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
