import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { parseExactJson, stringifyExactJson } from '../../shared/json/exact-json';
import type { ApiRecord } from '../../shared/store/types';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { storedItem } from '../../shared/store/actions/create/item';
import { db } from '../../shared/store/client';
import { toRecord } from '../../shared/store/read/projection';
import { UPDATED_ATTRIBUTE, VERSION_ATTRIBUTE, WRITE_TOKEN_ATTRIBUTE } from '../../shared/store/table';
import { measureMs, secondsFor } from '../support/machine-speed';
import { ledgerModel } from '../support/models';
import { storedItems } from '../support/stored';

// The commands run as a user runs them, each a process of its own on this file's engine, with
// the ledger models in their catalog (test/support/served-models/ledger-catalog.ts).
const ROOT = resolve(__dirname, '../..');
const ENDPOINT = process.env.DYNAMODB_ENDPOINT!;
const SOURCE = process.env.TABLE_NAME!;
const ledger = ledgerModel('ledger');
const moved = ledgerModel('ledger_moved', { shards: 2, indexed: ['amount', 'big'] });
// The 10,000 on dynalite; DynamoDB Local writes them eight times slower (125 s of a run's
// 15 minutes), and the same paths (pages, batches, the kill mid-way) are taken by 2,000.
const COUNT = process.env.RG_TEST_ENGINE === 'ddblocal' ? 2_000 : 10_000;
const dir = mkdtempSync(join(tmpdir(), 'recordgate-export-'));

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `npm run <command> -- <args>` on `table`; `killWhen` sends SIGKILL once its standard error says so. */
function run(command: 'export' | 'import', table: string, args: string[], killWhen?: (stderr: string) => boolean): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, `scripts/${command}.ts`), ...args, '--endpoint', ENDPOINT], {
    cwd: ROOT,
    env: {
      ...process.env,
      TABLE_NAME: table,
      NODE_OPTIONS: `--require ${resolve(ROOT, 'test/support/served-models/swap.cjs')}`,
      RG_SWAP_MODEL: `${resolve(ROOT, 'shared/models/catalog.ts')}=${resolve(ROOT, 'test/support/served-models/ledger-catalog.ts')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString();
    if (killWhen?.(out.stderr)) child.kill('SIGKILL');
  });
  return new Promise((done) => child.once('close', (code, signal) => done({ code, signal, ...out })));
}

/** Items as the API answers their records, by id: what an export must carry and an import give back. */
const toRecords = (items: Record<string, unknown>[]) => items.map((item) => toRecord(item)).sort((a, b) => (a.id < b.id ? -1 : 1));
const recordsIn = async (model: typeof ledger, table: string) => toRecords(await storedItems(model, table));

/** A number a double cannot hold: past 2^64, or 30 significant digits of decimals. */
const exact = (digits: string) => NumberValue.from(digits);
const tenants = ['acme', 'globex', undefined];
const owners = ['ann', 'bob', undefined];

function ledgerData(i: number) {
  const org = tenants[i % 3];
  const owner = owners[Math.floor(i / 3) % 3];
  return {
    big: exact(`${18446744073709551616n + BigInt(i) * 1_000_003n}`),
    amount: i % 2 === 0 ? exact(`${i}.${'142857'.repeat(4)}`) : i / 4,
    meta: { label: `row ${i} ✓`, digits: exact(`-0.000000000000${i}00000000000000000001`), ...(i % 5 === 0 ? { tags: ['a', `t${i}`] } : {}) },
    ...(owner === undefined ? {} : { owner }),
    ...(org === undefined ? {} : { org }),
  };
}

/** Items as stored but for the write token, which every write makes anew. */
const withoutToken = (items: Record<string, unknown>[]) => items.map(({ [WRITE_TOKEN_ATTRIBUTE]: _, ...rest }) => rest);
let originalItems: Awaited<ReturnType<typeof storedItems>>;
let originals: ReturnType<typeof toRecords>;
const exported = join(dir, 'ledger.ndjson');

beforeAll(async () => {
  // Written straight to the table, 25 at a time, as the store's create makes items (10,000 creates
  // through transactions time out on a loaded DynamoDB Local), with updated times and versions of their own.
  const item = (i: number) => {
    const created = new Date(Date.UTC(2026, 0, 1) + i * 1000);
    const stored = storedItem(ledger, { id: `r${i}`, data: ledgerData(i) }, created.toISOString());
    return { ...stored, [UPDATED_ATTRIBUTE]: new Date(created.getTime() + i).toISOString(), [VERSION_ATTRIBUTE]: 1 + (i % 4) };
  };
  const seed = async (from: number) => {
    let requests = Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: item(from + i) } }));
    while (requests.length > 0) {
      // Puts of whole items: sending one again after the store's 3 s timeout (a loaded DynamoDB Local) writes the same.
      const answer = await db()
        .send(new BatchWriteCommand({ RequestItems: { [SOURCE]: requests } }))
        .catch((error: Error) => {
          if (error.name !== 'TimeoutError') throw error;
          return { UnprocessedItems: { [SOURCE]: requests } };
        });
      requests = (answer.UnprocessedItems?.[SOURCE] ?? []) as typeof requests;
    }
  };
  for (let start = 0; start < COUNT; start += 25 * 8) await Promise.all(Array.from({ length: 8 }, (_, b) => seed(start + b * 25)));
  // The commands' calls get as long as a read of every record takes on this machine now (the
  // store's 3 s answer timeout is Lambda's budget; DynamoDB Local under load answers slower).
  const readMs = await measureMs(async () => {
    originalItems = await storedItems(ledger);
  });
  process.env.TEST_CALL_TIMEOUT_MS = String(secondsFor(readMs) * 1000);
  originals = toRecords(originalItems);
}, 120_000);

afterAll(() => {
  delete process.env.TEST_CALL_TIMEOUT_MS;
});

describe('npm run export and npm run import', () => {
  test('export writes every record of every tenant and owner, one line each, numbers to the digit', async () => {
    expect(originals).toHaveLength(COUNT);
    const result = await run('export', SOURCE, ['--model', 'ledger', '--out', exported]);
    expect(result.stderr).toContain(`exported ${COUNT} records of ledger`);
    expect(result.code).toBe(0);
    const lines = readFileSync(exported, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => parseExactJson(line)).sort((a, b) => ((a as ApiRecord).id < (b as ApiRecord).id ? -1 : 1))).toEqual(originals);
    // The text itself, not a parse of it: JSON.parse would round these.
    const r2 = lines.find((l) => l.startsWith('{"id":"r2",'))!;
    expect(r2).toContain(`"big":${18446744073709551616n + 2n * 1_000_003n}`);
    expect(r2).toContain(`"amount":2.${'142857'.repeat(4)}`);
  }, 60_000);

  test('an import killed mid-way and run again stores the very records in an empty table: ids, data to the digit, tenants, owners and system fields, nothing missing, nothing twice', async () => {
    const target = `${SOURCE}_copy`;
    const killed = await run('import', target, ['--model', 'ledger', '--in', exported], (stderr) =>
      [...stderr.matchAll(/through line (\d+):/g)].some(([, line]) => Number(line) >= COUNT * 0.3 && Number(line) < COUNT),
    );
    expect({ signal: killed.signal, stderr: killed.stderr }).toMatchObject({ signal: 'SIGKILL' });
    const partial = await storedItems(ledger, target);
    expect(partial.length).toBeGreaterThanOrEqual(COUNT * 0.3);
    expect(partial.length).toBeLessThan(COUNT);

    const resumed = await run('import', target, ['--model', 'ledger', '--in', exported]);
    expect(resumed.code).toBe(0);
    // The killed run's last transaction may land after the read above: counted then as skipped.
    const [, created, skipped] = new RegExp(`${COUNT} read, (\\d+) created, (\\d+) skipped`).exec(resumed.stdout)!.map(Number);
    expect(created + skipped).toBe(COUNT);
    expect(skipped).toBeGreaterThanOrEqual(partial.length);
    // Item for item: keys (tenant and shard), index keys, data and system fields; only the write token is new.
    expect(withoutToken(await storedItems(ledger, target))).toEqual(withoutToken(originalItems));
  }, 120_000);

  test('re-keys: the same lines into a model with other shards and another field indexed give the same records under the new keys', async () => {
    const target = `${SOURCE}_moved`;
    const some = join(dir, 'some.ndjson');
    writeFileSync(some, readFileSync(exported, 'utf8').split('\n').slice(0, 300).join('\n'));
    const result = await run('import', target, ['--model', 'ledger_moved', '--in', some]);
    expect(result.stdout).toContain('300 read, 300 created');
    const records = await recordsIn(moved, target);
    expect(records).toEqual(originals.filter((r) => records.some((m) => m.id === r.id)));
    expect(records).toHaveLength(300);
    // Each under the keys the moved model's own create would give it: its shards, amount indexed first.
    const asMovedCreates = records.map(({ id, _created_at, _updated_at, _version, ...data }) => ({
      ...storedItem(moved, { id, data }, _created_at as string),
      [UPDATED_ATTRIBUTE]: _updated_at,
      [VERSION_ATTRIBUTE]: _version,
    }));
    expect(withoutToken(await storedItems(moved, target))).toEqual(withoutToken(asMovedCreates).sort((x, y) => String(x.sk).localeCompare(String(y.sk))));
  }, 60_000);

  test('export --resume drops a torn last line and goes on after the last whole one, to the same file a whole export writes', async () => {
    const whole = readFileSync(exported);
    const torn = join(dir, 'torn.ndjson');
    // Cut in the middle of a line about two thirds in, as a kill mid-write leaves it.
    writeFileSync(torn, whole);
    truncateSync(torn, Math.floor(whole.length * 0.66));
    const result = await run('export', SOURCE, ['--model', 'ledger', '--out', torn, '--resume']);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/exported \d+ records of ledger .* after r\d+, the last complete line/);
    expect(readFileSync(torn).equals(whole)).toBe(true);
  }, 60_000);

  test('an export is never written over without --resume, and a table that is not there is named, in one line', async () => {
    const result = await run('export', SOURCE, ['--model', 'ledger', '--out', exported]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${exported} exists: pass --resume to continue it`);
    const missing = await run('export', `${SOURCE}_none`, ['--model', 'ledger']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`export cannot run: table ${SOURCE}_none does not exist there`);
  }, 30_000);

  test('import refuses what create refuses, by line, leaves another record under an id as it is, and replaces it only with --overwrite', async () => {
    const target = `${SOURCE}_odd`;
    const [first, second] = originals;
    const changed = { ...second, meta: { label: 'changed' } };
    const lines = [
      stringifyExactJson(first),
      '{"id":"bad","big":"not a number","amount":1,"meta":{"label":"x"}}',
      '',
      '{"id":"new","big":1,"amount":2,"meta":{"label":"fresh"},"stray":true}',
      '{"id":"fresh","big":1,"amount":2,"meta":{"label":"fresh"}}',
      '{"id":"torn","big":1,"amo',
    ];
    const file = join(dir, 'odd.ndjson');
    writeFileSync(file, `${lines.join('\n')}`);
    const seeded = join(dir, 'seed.ndjson');
    writeFileSync(seeded, `${stringifyExactJson(changed)}\n`);
    expect((await run('import', target, ['--model', 'ledger', '--in', seeded])).code).toBe(0);

    const result = await run('import', target, ['--model', 'ledger', '--in', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('5 read, 2 created, 0 skipped (stored the same already), 0 overwritten, 0 left as stored');
    expect(result.stdout).toContain('line 2 refused: data.big:');
    expect(result.stdout).toContain('line 4 refused: data.stray: unknown property');
    expect(result.stdout).toMatch(/line 6 refused: record: not JSON/);
    // Run again, the same lines are the same records: a line without system fields by its data.
    const again = await run('import', target, ['--model', 'ledger', '--in', file]);
    expect(again.stdout).toContain('5 read, 0 created, 2 skipped (stored the same already), 0 overwritten, 0 left as stored');
    const stored = await recordsIn(ledger, target);
    expect(stored.map((r) => r.id)).toEqual(['fresh', first.id, second.id].sort());
    expect(stored.find((r) => r.id === second.id)).toEqual(changed);

    const clash = join(dir, 'clash.ndjson');
    writeFileSync(clash, `${stringifyExactJson(second)}\n`);
    const kept = await run('import', target, ['--model', 'ledger', '--in', clash]);
    expect(kept.code).toBe(1);
    expect(kept.stdout).toContain('1 left as stored (another record under the id)');
    expect(kept.stdout).toContain('lines: 1');
    expect((await recordsIn(ledger, target)).find((r) => r.id === second.id)).toEqual(changed);

    const overwritten = await run('import', target, ['--model', 'ledger', '--in', clash, '--overwrite']);
    expect(overwritten.code).toBe(0);
    expect(overwritten.stdout).toContain('1 overwritten');
    expect((await recordsIn(ledger, target)).find((r) => r.id === second.id)).toEqual(second);
  }, 60_000);
});
