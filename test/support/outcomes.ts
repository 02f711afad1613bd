import type { Reply } from './api';

/** How often each operation met each answer: a property test prints it, so a run shows what its generators reached. */
export class Outcomes {
  /** The operation the next answers belong to. */
  current = '';
  private readonly seen = new Map<string, number>();

  readonly tally = (reply: Reply): void => {
    const key = `${this.current} ${reply.status}${reply.body?.data?.error ? ` ${reply.body.data.error}` : ''}`;
    this.seen.set(key, (this.seen.get(key) ?? 0) + 1);
  };

  /** Every "operation answer" met so far. */
  keys(): IterableIterator<string> {
    return this.seen.keys();
  }

  summary(): string {
    return [...this.seen]
      .sort()
      .map(([k, n]) => `${k}: ${n}`)
      .join('\n');
  }
}
