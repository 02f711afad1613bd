/**
 * `npm run load [-- --duration 60 --clients 32]`: a load run against the local server. Starts
 * dynalite (in memory) and the local server in this process, then runs clients that mix every
 * record operation, each remembering what it was told (which records it created, changed and
 * deleted). At the end every client's records are read back and compared with what it was
 * told. Exits non-zero on any 5xx, any transport error, or any difference.
 */
import { parseArgs } from 'node:util';
import { prepareTable, startDynalite } from './local/engine';
import { startLocalServer } from './local/server';

const { values: flags } = parseArgs({
  options: { duration: { type: 'string', default: '60' }, clients: { type: 'string', default: '32' } },
});
const DURATION_S = Number(flags.duration);
const CLIENTS = Number(flags.clients);
const TOKEN = 'load-run-token';

type Op = 'create' | 'create_batch' | 'get_one' | 'list' | 'count' | 'update' | 'delete' | 'models';
/** How often each operation is picked: writes and reads roughly half and half. */
const MIX: ReadonlyArray<[Op, number]> = [
  ['create', 25],
  ['create_batch', 5],
  ['get_one', 20],
  ['list', 15],
  ['count', 10],
  ['update', 15],
  ['delete', 8],
  ['models', 2],
];

interface Stats {
  latencies: Map<Op, number[]>;
  statuses: Map<string, number>;
  transportErrors: number;
  failures: string[];
}

function pick(): Op {
  let r = Math.random() * MIX.reduce((n, [, w]) => n + w, 0);
  for (const [op, weight] of MIX) {
    r -= weight;
    if (r < 0) return op;
  }
  return 'get_one';
}

/** One client: its records carry user_id = its number (an indexed field), so it can list its own. */
class Client {
  /** id -> content, as this client was last told. */
  readonly records = new Map<string, string>();
  private writes = 0;

  constructor(
    private readonly n: number,
    private readonly url: string,
    private readonly stats: Stats,
  ) {}

  private async call(op: Op, path: string, body?: unknown): Promise<{ status: number; data: any } | undefined> {
    const started = performance.now();
    try {
      const response = await fetch(`${this.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await response.json()) as { data: any };
      const key = `${op} ${response.status}`;
      this.stats.statuses.set(key, (this.stats.statuses.get(key) ?? 0) + 1);
      this.stats.latencies.get(op)!.push(performance.now() - started);
      if (response.status >= 500) this.stats.failures.push(`${op}: ${response.status} ${JSON.stringify(json)}`);
      return { status: response.status, data: json.data };
    } catch (error) {
      this.stats.transportErrors += 1;
      this.stats.failures.push(`${op}: ${(error as Error).message}`);
      return undefined;
    }
  }

  private someId(): string | undefined {
    const ids = [...this.records.keys()];
    return ids[Math.floor(Math.random() * ids.length)];
  }

  private expect(condition: boolean, what: string): void {
    if (!condition) this.stats.failures.push(`client ${this.n}: ${what}`);
  }

  async step(): Promise<void> {
    const op = pick();
    const path = (name: string) => `/api/db/reaction/${name}`;
    const content = () => `c${this.n}-${++this.writes}`;
    const id = this.someId();
    switch (op) {
      case 'create': {
        const c = content();
        const r = await this.call(op, path('create'), { data: { user_id: this.n, content: c } });
        if (r?.status === 201) this.records.set(r.data.id, c);
        else this.expect(false, `create answered ${r?.status}`);
        return;
      }
      case 'create_batch': {
        const batch = Array.from({ length: 5 }, content);
        const r = await this.call(op, path('create'), { data: batch.map((c) => ({ user_id: this.n, content: c })) });
        if (r?.status === 201) for (const rec of r.data.records as Array<{ id: string; content: string }>) this.records.set(rec.id, rec.content);
        else this.expect(false, `batch create answered ${r?.status}`);
        return;
      }
      case 'get_one': {
        if (!id) return;
        const r = await this.call(op, path('get_one'), { filters: { id } });
        this.expect(r?.status === 200 && r.data.content === this.records.get(id), `get_one ${id}: ${r?.status} ${r?.data?.content}`);
        return;
      }
      case 'list': {
        const r = await this.call(op, path('list'), { filters: { user_id: this.n }, limit: 20 });
        this.expect(r?.status === 200 && r.data.items.every((i: { user_id: number }) => i.user_id === this.n), `list answered ${r?.status}`);
        return;
      }
      case 'count': {
        const r = await this.call(op, path('count'), { filters: { user_id: this.n } });
        this.expect(r?.status === 200 && r.data.count === this.records.size, `count ${r?.data?.count} != ${this.records.size}`);
        return;
      }
      case 'update': {
        if (!id) return;
        const c = content();
        const r = await this.call(op, path('update'), { filters: { id }, values: { content: c } });
        if (r?.status === 200 && r.data.updated === 1) this.records.set(id, c);
        else this.expect(false, `update ${id}: ${r?.status} ${JSON.stringify(r?.data)}`);
        return;
      }
      case 'delete': {
        if (!id) return;
        const r = await this.call(op, path('delete'), { filters: { id } });
        if (r?.status === 200 && r.data.deleted === 1) this.records.delete(id);
        else this.expect(false, `delete ${id}: ${r?.status} ${JSON.stringify(r?.data)}`);
        return;
      }
      case 'models': {
        const r = await this.call(op, '/api/db/models');
        this.expect(r?.status === 200, `models answered ${r?.status}`);
      }
    }
  }

  /** Every record of this client as stored, read page by page through the API. */
  async stored(): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const r = await this.call('list', '/api/db/reaction/list', {
        filters: { user_id: this.n },
        limit: 1000,
        consistent: true,
        ...(cursor ? { cursor } : {}),
      });
      for (const item of r?.data.items ?? []) found.set(item.id, item.content);
      cursor = r?.data.next_cursor ?? undefined;
    } while (cursor);
    return found;
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const ms = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  process.env.TABLE_NAME = 'load';
  process.env.API_TOKENS = JSON.stringify({ [TOKEN]: ['read', 'write', 'admin'] });
  const engine = await startDynalite();
  process.env.DYNAMODB_ENDPOINT = engine.endpoint;
  await prepareTable(engine.endpoint, 'load');
  const { server, url } = await startLocalServer({ port: 0, host: '127.0.0.1' });
  console.log(`load: ${CLIENTS} clients for ${DURATION_S} s against ${url} (dynalite in memory, same process)`);

  const stats: Stats = { latencies: new Map(MIX.map(([op]) => [op, []])), statuses: new Map(), transportErrors: 0, failures: [] };
  const clients = Array.from({ length: CLIENTS }, (_, i) => new Client(i + 1, url, stats));
  const deadline = Date.now() + DURATION_S * 1000;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      while (Date.now() < deadline) await client.step();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;

  // What the clients were told, against what is stored.
  let mismatches = 0;
  for (const client of clients) {
    const stored = await client.stored();
    const same = stored.size === client.records.size && [...client.records].every(([id, c]) => stored.get(id) === c);
    if (!same) {
      mismatches += 1;
      stats.failures.push(`client stored ${stored.size} records, was told ${client.records.size}`);
    }
  }
  const total = (await (
    await fetch(`${url}/api/db/reaction/count`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: '{}',
    })
  ).json()) as { data: { count: number } };
  const expectedTotal = clients.reduce((n, c) => n + c.records.size, 0);

  const requests = [...stats.latencies.values()].reduce((n, l) => n + l.length, 0);
  const fiveXX = [...stats.statuses].filter(([k]) => / 5\d\d$/.test(k)).reduce((n, [, v]) => n + v, 0);
  console.log(
    `\nrequests: ${requests} in ${elapsed.toFixed(1)} s = ${(requests / elapsed).toFixed(0)}/s; 5xx: ${fiveXX}; transport errors: ${stats.transportErrors}`,
  );
  console.log('\n| operation | requests | p50 ms | p95 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|');
  for (const [op, list] of stats.latencies) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(
      `| ${op} | ${sorted.length} | ${ms(quantile(sorted, 0.5))} | ${ms(quantile(sorted, 0.95))} | ${ms(quantile(sorted, 0.99))} | ${ms(sorted.at(-1) ?? 0)} |`,
    );
  }
  console.log(`\nstatuses: ${JSON.stringify(Object.fromEntries([...stats.statuses].sort()))}`);
  console.log(
    `verification: ${expectedTotal} records the clients were told exist, ${total.data.count} counted; ${CLIENTS - mismatches}/${CLIENTS} clients' records match exactly`,
  );
  for (const failure of stats.failures.slice(0, 20)) console.log(`  failure: ${failure}`);

  server.closeAllConnections();
  server.close();
  engine.server.close();
  const ok = fiveXX === 0 && stats.transportErrors === 0 && stats.failures.length === 0 && total.data.count === expectedTotal;
  console.log(ok ? '\nload: OK' : `\nload: FAILED (${stats.failures.length} failures)`);
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
