import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { AWS_LIMITS } from '../../shared/limits';
import type { ErrorDetail } from '../../shared/models/details';
import type { Model } from '../../shared/models/model';
import { putKept, type KeptOutcome, type KeptRecord } from '../../shared/store/transfer/put-kept';
import { keptFromLine } from './record-line';

export interface ImportSummary {
  /** Lines that held something (blank lines are passed over). */
  read: number;
  created: number;
  /** The same record was stored already (an earlier, interrupted run wrote it). */
  skipped: number;
  overwritten: number;
  /** Lines whose id holds another record, left as it is (without --overwrite). */
  differs: number[];
  refused: Array<{ line: number; details: ErrorDetail[] }>;
}

export interface ImportOptions {
  input: string;
  overwrite?: boolean;
  /** Told after each batch: the last line it held, and the counts so far. */
  progress?: (line: number, summary: ImportSummary) => void;
}

/** Batches written at once: the next ones are read and checked while earlier ones are in flight. */
const IN_FLIGHT = 4;

type Batch = Array<{ line: number; record: KeptRecord }>;

/**
 * Reads an export line by line and stores its records (putKept), in batches of up to 100, a few
 * in flight at a time: what is already stored the same is skipped, so running it again after an
 * interruption ends as one whole run would have. A record whose id a batch in flight holds waits
 * for them, so a file naming an id twice meets the first before the second, as in a file read in order.
 */
export async function importFile(model: Model, { input, overwrite = false, progress }: ImportOptions): Promise<ImportSummary> {
  const summary: ImportSummary = { read: 0, created: 0, skipped: 0, overwritten: 0, differs: [], refused: [] };
  const inFlight: Array<{ batch: Batch; outcomes: Promise<KeptOutcome[]> }> = [];
  const idsInFlight = new Set<string>();
  let batch: Batch = [];
  /** Whether the last batch settled met records stored already: a resumed run reads before it writes, until it is past them. */
  let meetsStored = false;
  /** Waits for the oldest batch in flight and counts its outcomes: every line up to its last is then settled. */
  const settleOldest = async () => {
    const oldest = inFlight.shift()!;
    const outcomes = await oldest.outcomes;
    outcomes.forEach((outcome, i) => {
      const { line, record } = oldest.batch[i];
      idsInFlight.delete(record.id);
      if (outcome.kind === 'refused') summary.refused.push({ line, details: outcome.details });
      else if (outcome.kind === 'differs') summary.differs.push(line);
      else summary[outcome.kind] += 1;
    });
    meetsStored = outcomes.some((outcome) => outcome.kind === 'skipped' || outcome.kind === 'differs' || outcome.kind === 'overwritten');
    progress?.(oldest.batch[oldest.batch.length - 1].line, summary);
  };
  const send = async () => {
    if (batch.length > 0) {
      const records = batch.map((b) => b.record);
      inFlight.push({ batch, outcomes: putKept(model, records, { overwrite, readFirst: meetsStored }) });
      // Settled in order below; a rejection is seen there, not as an unhandled one meanwhile.
      inFlight[inFlight.length - 1].outcomes.catch(() => undefined);
      batch = [];
    }
    if (inFlight.length >= IN_FLIGHT) await settleOldest();
  };
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(input), crlfDelay: Infinity })) {
    line += 1;
    if (text.trim() === '') continue;
    summary.read += 1;
    const record = keptFromLine(text);
    if (Array.isArray(record)) {
      summary.refused.push({ line, details: record });
      continue;
    }
    if (idsInFlight.has(record.id)) {
      await send();
      while (inFlight.length > 0) await settleOldest();
    }
    batch.push({ line, record });
    idsInFlight.add(record.id);
    if (batch.length === AWS_LIMITS.transactionActions) await send();
  }
  await send();
  while (inFlight.length > 0) await settleOldest();
  return summary;
}
