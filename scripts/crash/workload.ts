import { call, ServerGone } from './client';

/**
 * Writers that create, batch-create, update and delete `reaction` records until stopped,
 * remembering for every id each state it may be in: after an answer, exactly what was answered;
 * while a write is unanswered (the server may die under it), the old state or the new one.
 * `null` stands for "no such record".
 */
export class Ledger {
  readonly possible = new Map<string, Set<string | null>>();
  /** Batches whose create was never answered: each must be stored whole or not at all. */
  readonly openBatches = new Set<ReadonlyArray<string>>();

  begin(id: string, next: string | null): void {
    const states = this.possible.get(id) ?? new Set<string | null>([null]);
    states.add(next);
    this.possible.set(id, states);
  }

  settle(id: string, state: string | null): void {
    this.possible.set(id, new Set([state]));
  }
}

export interface WorkloadOptions {
  url: string;
  round: number;
  writers: number;
  ledger: Ledger;
  /** Stops handing out new writes once true; writes already sent keep running. */
  stopped: () => boolean;
}

/** Runs the writers; resolves when every writer has stopped or lost its server. Returns acknowledged writes. */
export async function runWriters(options: WorkloadOptions): Promise<number> {
  let acknowledged = 0;
  const writer = async (w: number) => {
    const own: string[] = [];
    for (let seq = 0; !options.stopped(); seq++) {
      const tag = `r${options.round}-w${w}-s${seq}`;
      const roll = Math.random();
      try {
        if (roll < 0.35 || own.length === 0) {
          options.ledger.begin(tag, `v0-${tag}`);
          const answer = await call(options.url, 'reaction/create', { id: tag, data: { user_id: w, content: `v0-${tag}` } });
          if (answer.status !== 201) throw new Error(`create ${tag}: ${answer.status} ${JSON.stringify(answer.data)}`);
          options.ledger.settle(tag, `v0-${tag}`);
          own.push(tag);
        } else if (roll < 0.55) {
          const ids = [0, 1, 2, 3, 4].map((i) => `${tag}-b${i}`);
          for (const id of ids) options.ledger.begin(id, `v0-${id}`);
          options.ledger.openBatches.add(ids);
          const answer = await call(options.url, 'reaction/create', { ids, data: ids.map((id) => ({ user_id: w, content: `v0-${id}` })) });
          if (answer.status !== 201) throw new Error(`batch ${tag}: ${answer.status} ${JSON.stringify(answer.data)}`);
          options.ledger.openBatches.delete(ids);
          for (const id of ids) options.ledger.settle(id, `v0-${id}`);
          own.push(...ids);
        } else if (roll < 0.9) {
          const id = own[Math.floor(Math.random() * own.length)];
          const content = `v${seq}-${id}`;
          options.ledger.begin(id, content);
          const answer = await call(options.url, 'reaction/update', { filters: { id }, values: { content } });
          if (answer.status !== 200 || answer.data.updated !== 1) throw new Error(`update ${id}: ${answer.status} ${JSON.stringify(answer.data)}`);
          options.ledger.settle(id, content);
        } else {
          const id = own.splice(Math.floor(Math.random() * own.length), 1)[0];
          options.ledger.begin(id, null);
          const answer = await call(options.url, 'reaction/delete', { filters: { id } });
          if (answer.status !== 200 || answer.data.deleted !== 1) throw new Error(`delete ${id}: ${answer.status} ${JSON.stringify(answer.data)}`);
          options.ledger.settle(id, null);
        }
        acknowledged++;
      } catch (error) {
        // The server was killed under this write: its outcome stays open in the ledger.
        if (error instanceof ServerGone) return;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: options.writers }, (_, w) => writer(w)));
  return acknowledged;
}
