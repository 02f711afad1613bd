import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointFile, readCheckpoint, writeCheckpoint } from '../../../scripts/local/feed-checkpoint';

const dir = () => mkdtempSync(join(tmpdir(), 'recordgate-checkpoint-'));

test('none kept: read from the start of the stream', () => {
  expect(readCheckpoint(checkpointFile(dir()), 'arn:1')).toEqual({});
});

test('what was written is read back for its stream, and only for it: a table made again starts from its new stream', async () => {
  const file = checkpointFile(dir());
  await writeCheckpoint(file, 'arn:1', { 'shardId-1': '000000000000000000007' });
  await writeCheckpoint(file, 'arn:1', { 'shardId-1': '000000000000000000009', 'shardId-2': '000000000000000000010' });
  expect(readCheckpoint(file, 'arn:1')).toEqual({ 'shardId-1': '000000000000000000009', 'shardId-2': '000000000000000000010' });
  expect(readCheckpoint(file, 'arn:2')).toEqual({});
  // Replaced by a rename: no half-written file is left beside it.
  expect(readdirSync(join(file, '..'))).toEqual(['feed-checkpoint.json']);
});

test('a file that is not a checkpoint stops the reader rather than starting it over from the start', () => {
  const file = checkpointFile(dir());
  writeFileSync(file, '{"streamArn": 1}');
  expect(() => readCheckpoint(file, 'arn:1')).toThrow();
});
