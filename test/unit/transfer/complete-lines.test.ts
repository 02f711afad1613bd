import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { completeLines } from '../../../scripts/transfer/complete-lines';

const dir = mkdtempSync(join(tmpdir(), 'complete-lines-'));
const fileOf = (text: string) => {
  const file = join(dir, 'f.ndjson');
  writeFileSync(file, text);
  return file;
};

// The reference: the whole text split, as a reader of a small file would.
function expected(text: string): { end: number; last?: string } {
  const end = text.lastIndexOf('\n') + 1;
  if (end === 0) return { end: 0 };
  const lines = text.slice(0, end - 1).split('\n');
  return { end: Buffer.byteLength(text.slice(0, end)), last: lines[lines.length - 1] };
}

test('finds the end of the last whole line and that line, whatever the tail holds (lines longer than the 64 KiB read at a time too)', () => {
  const line = fc.oneof(fc.string({ maxLength: 40 }), fc.constant('x'.repeat(70_000)), fc.constant('é🚀'.repeat(20_000))).map((s) => s.replace(/\n/g, ''));
  fc.assert(
    fc.property(fc.array(line, { maxLength: 5 }), fc.boolean(), (lines, torn) => {
      const text = lines.join('\n') + (torn || lines.length === 0 ? '' : '\n');
      expect(completeLines(fileOf(text))).toEqual(expected(text));
    }),
    { numRuns: 60 },
  );
});

test('an empty file, or one torn line alone, has no whole line', () => {
  expect(completeLines(fileOf(''))).toEqual({ end: 0 });
  expect(completeLines(fileOf('{"id":"a","b'))).toEqual({ end: 0 });
  expect(completeLines(fileOf('{"id":"a"}\n'))).toEqual({ end: 11, last: '{"id":"a"}' });
  expect(completeLines(fileOf('\n\n'))).toEqual({ end: 2, last: '' });
});
