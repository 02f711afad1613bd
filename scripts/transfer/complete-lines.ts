import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Bytes read at a time from the end of the file. */
const CHUNK = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * How many bytes of the file are complete lines, and the last of them: what an export killed
 * mid-write left whole. Read from the end, a chunk at a time, never the whole file.
 */
export function completeLines(path: string): { end: number; last?: string } {
  const fd = openSync(path, 'r');
  try {
    let tail = Buffer.alloc(0);
    let position = fstatSync(fd).size;
    let end: number | undefined;
    while (position > 0) {
      const length = Math.min(CHUNK, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      readSync(fd, chunk, 0, length, position);
      tail = Buffer.concat([chunk, tail]);
      if (end === undefined) {
        const newline = tail.lastIndexOf(NEWLINE);
        if (newline >= 0) end = position + newline + 1;
      }
      // The newline before the last complete line's own, if this much of the file holds it.
      const before = end === undefined || end - position < 2 ? -1 : tail.lastIndexOf(NEWLINE, end - position - 2);
      if (before >= 0) return { end: end!, last: tail.subarray(before + 1, end! - position - 1).toString('utf8') };
    }
    return end === undefined ? { end: 0 } : { end, last: tail.subarray(0, end - 1).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}
