import { call, listAll } from './client';
import type { Ledger } from './workload';

export interface ConsistencyReport {
  records: number;
  /** Each disagreement between an index and the records, or between a record and what its writer was told. */
  problems: string[];
}

const describe = (record: Record<string, unknown>) => JSON.stringify(record);

/**
 * Reads every record from the base table, then every record through each index (ordering by an
 * indexed field reads its GSI), and compares them id by id: a ghost index entry shows as an
 * extra or stale record, a lost one as a missing record. Counts by value (index key conditions)
 * are compared with the records too, and every id's state with what its writer may have been told.
 */
export async function checkConsistency(url: string, ledger: Ledger, indexed: ReadonlyArray<string> = ['user_id', 'content']): Promise<ConsistencyReport> {
  const problems: string[] = [];
  const records = await listAll(url, 'reaction', 'id');
  const byId = new Map(records.map((r) => [r.id as string, r]));
  for (const field of indexed) {
    const viaIndex = await listAll(url, 'reaction', field);
    const seen = new Set<string>();
    for (const entry of viaIndex) {
      const id = entry.id as string;
      seen.add(id);
      const record = byId.get(id);
      if (!record) problems.push(`index ${field}: entry for ${id} without a record: ${describe(entry)}`);
      else if (describe(record) !== describe(entry)) problems.push(`index ${field}: entry ${describe(entry)} differs from record ${describe(record)}`);
    }
    for (const id of byId.keys()) if (!seen.has(id)) problems.push(`index ${field}: record ${id} missing from the index`);
  }
  const contents = new Map<string, number>();
  for (const r of records) contents.set(r.content as string, (contents.get(r.content as string) ?? 0) + 1);
  const sample = [...contents.keys()].sort(() => Math.random() - 0.5).slice(0, 25);
  for (const content of sample) {
    const counted = await call(url, 'reaction/count', { filters: { content } });
    if (counted.data.count !== contents.get(content)) problems.push(`count by content ${content}: ${counted.data.count}, records say ${contents.get(content)}`);
  }
  const total = await call(url, 'reaction/count', {});
  if (total.data.count !== records.length) problems.push(`count: ${total.data.count}, records: ${records.length}`);
  for (const [id, states] of ledger.possible) {
    const state = (byId.get(id)?.content as string | undefined) ?? null;
    if (!states.has(state)) problems.push(`record ${id} is ${JSON.stringify(state)}, its writer was told ${JSON.stringify([...states])}`);
  }
  for (const ids of ledger.openBatches) {
    const stored = ids.filter((id) => byId.has(id));
    if (stored.length > 0 && stored.length < ids.length) problems.push(`batch ${ids[0]}..: ${stored.length} of ${ids.length} records stored`);
  }
  return { records: records.length, problems };
}
