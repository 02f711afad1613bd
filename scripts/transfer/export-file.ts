import { createWriteStream, existsSync, truncateSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseExactJson } from '../../shared/json/exact-json';
import type { Model } from '../../shared/models/model';
import { everyRecord, positionAfter, type Position } from '../../shared/store/transfer/every-record';
import type { ApiRecord } from '../../shared/store/types';
import { StartupError } from '../local/startup';
import { completeLines } from './complete-lines';
import { recordLine } from './record-line';

export interface ExportOptions {
  /** The file to write; standard output when not given. */
  out?: string;
  /** Go on with `out` after its last complete line, as a killed export left it. */
  resume?: boolean;
}

export interface ExportReport {
  written: number;
  /** The id of the last record the file held already, when resumed. */
  resumedAfter?: string;
}

/** Where a resumed export goes on: after the last complete line, the torn one after it cut off. */
function resumePoint(model: Model, out: string): { from: Position; last?: string } {
  if (!existsSync(out)) return { from: { shard: 0 } };
  const { end, last } = completeLines(out);
  truncateSync(out, end);
  if (last === undefined) return { from: { shard: 0 } };
  const record = parseExactJson(last) as ApiRecord;
  return { from: positionAfter(model, record), last: record.id };
}

const writeChunk = (sink: Writable, text: string): Promise<void> =>
  new Promise((done, fail) => {
    sink.write(text, (error) => (error ? fail(error) : done()));
  });

/**
 * Writes every record of the model as NDJSON, a page at a time (everyRecord), each line the
 * record as the API answers it with its numbers to the digit. A new file is never written over;
 * `resume` goes on after the file's last complete line.
 */
export async function exportModel(model: Model, { out, resume = false }: ExportOptions): Promise<ExportReport> {
  if (resume && out === undefined) throw new StartupError('--resume continues a file: give it with --out');
  if (out !== undefined && !resume && existsSync(out)) throw new StartupError(`${out} exists: pass --resume to continue it, or remove it to start over`);
  const start = out !== undefined && resume ? resumePoint(model, out) : { from: { shard: 0 } };
  const sink = out === undefined ? process.stdout : createWriteStream(out, { flags: 'a' });
  let written = 0;
  for await (const page of everyRecord(model, start.from)) {
    await writeChunk(sink, page.map(recordLine).join(''));
    written += page.length;
  }
  if (sink !== process.stdout) {
    sink.end();
    await finished(sink);
  }
  return { written, ...(start.last === undefined ? {} : { resumedAfter: start.last }) };
}
