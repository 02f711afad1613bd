import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareTable } from '../local/engine';
import { processTreeCpuMs } from './process-cpu';
import type { BenchContext } from './context';
import { type Load, load, SENDERS, startServer } from './local-server';
import type { Section } from './report';
import { median, ratio, round } from './stats';

/** A webhook receiver that takes every delivery at once: the feed's own work is measured, not a subscriber's. */
async function receiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

type Metered = Load & { serverCpuMs?: number; engineCpuMs?: number; benchCpuMs: number };

/**
 * A load, and the CPU it cost per create acknowledged: the server's processes (its feed's
 * included), the engine's (the stream's reads are its work) and this one's (the senders and the
 * receiver). On a shared machine throughput moves with the others' load; the CPU a create costs
 * moves much less.
 */
async function metered(run: () => Promise<Load>, pid: number, enginePid: number): Promise<Metered> {
  const [server, engine, bench] = [processTreeCpuMs(pid), processTreeCpuMs(enginePid), process.cpuUsage()];
  const loaded = await run();
  const [serverAfter, engineAfter] = [processTreeCpuMs(pid), processTreeCpuMs(enginePid)];
  const used = process.cpuUsage(bench);
  const perCreate = (ms: number) => ms / Math.max(1, loaded.ok);
  // /proc is Linux's: elsewhere a process's CPU is unknown.
  const spent = (before: number | undefined, after: number | undefined) =>
    before === undefined || after === undefined ? undefined : perCreate(after - before);
  return {
    ...loaded,
    serverCpuMs: spent(server, serverAfter),
    engineCpuMs: spent(engine, engineAfter),
    benchCpuMs: perCreate((used.user + used.system) / 1000),
  };
}

/**
 * What the change feed adds to a write locally: creates through two `npm start` servers on the
 * same engine, each with its own table and data folder, one with no subscription and one whose
 * subscription takes every reaction change (the stream poller, the consumer, the outbox and its
 * deliveries running in the feed's process, which that server starts beside its own). Rounds alternate between them so that the machine's
 * load falls on both alike.
 */
export async function feedCostBench(ctx: BenchContext): Promise<Section> {
  const [rounds, seconds] = ctx.quick ? [1, 3] : [4, 15];
  const hook = await receiver();
  const subscriptions = JSON.stringify([{ name: 'bench', models: ['reaction'], url: hook.url, secret: SECRET }]);
  const servers = await Promise.all(
    (['bench_feed_off', 'bench_feed_on'] as const).map(async (table) => {
      await prepareTable(ctx.endpoint, table);
      const env = { TABLE_NAME: table, DATA_DIR: mkdtempSync(join(tmpdir(), `recordgate-${table}-`)) };
      return startServer(ctx.endpoint, table === 'bench_feed_on' ? { ...env, SUBSCRIPTIONS: subscriptions } : env);
    }),
  );
  try {
    const create = (n: number) => ({
      method: 'POST',
      path: '/api/db/reaction/create',
      body: JSON.stringify({ data: { user_id: n, content: `feed cost ${n}` } }),
      headers: { 'content-type': 'application/json' },
    });
    const runs: Record<'off' | 'on', Metered[]> = { off: [], on: [] };
    for (let round = 0; round < rounds; round++) {
      runs.off.push(await metered(() => load(seconds, create, servers[0].url), servers[0].pid, ctx.enginePid));
      runs.on.push(await metered(() => load(seconds, create, servers[1].url), servers[1].pid, ctx.enginePid));
      ctx.log(`feed cost round ${round + 1}: off ${runs.off.at(-1)!.perSecond}/s, on ${runs.on.at(-1)!.perSecond}/s`);
    }
    const acknowledged = runs.on.reduce((sum, l) => sum + l.ok, 0);
    // Every create the feed server acknowledged reaches the receiver, once or more, before the figures are kept.
    const deadline = Date.now() + 60_000;
    while (hook.received() < acknowledged && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const summary = (ls: Metered[]) => ({
      perSecond: median(ls.map((l) => l.perSecond)),
      p50: round(median(ls.map((l) => l.p50))),
      p99: round(median(ls.map((l) => l.p99))),
      failed: ls.reduce((sum, l) => sum + (l.sent - l.ok), 0),
      serverCpuMs: ls.every((l) => l.serverCpuMs !== undefined) ? round(median(ls.map((l) => l.serverCpuMs!))) : undefined,
      engineCpuMs: ls.every((l) => l.engineCpuMs !== undefined) ? round(median(ls.map((l) => l.engineCpuMs!))) : undefined,
      benchCpuMs: round(median(ls.map((l) => l.benchCpuMs))),
    });
    const off = summary(runs.off);
    const on = summary(runs.on);
    const slower = round((1 - on.perSecond / off.perSecond) * 100);
    return {
      id: 'feed-cost',
      title: 'What the change feed adds to a write',
      method: `
Two local servers (\`npm start\`, in child processes) on the bench engine, each with its own table
and data folder: one with no subscription, one whose \`SUBSCRIPTIONS\` hand every reaction change to a
webhook receiver in this process that answers 204 at once. ${SENDERS} concurrent senders create
reactions for ${seconds} s on each server in turn, ${rounds} rounds; the medians of the rounds are
compared. Both tables have a stream, so the engine writes a stream record with each item for
both; the feed's server starts the feed in a process of its own (scripts/local/feed-process.ts),
whose poller reads the stream every 100 ms (and writes its checkpoint file), whose consumer turns
each record into a change, and whose deliveries, signed POSTs over kept-alive connections, are
made at once and written to the outbox only when not delivered within a second
(shared/feed/first-attempt.ts). Its thread is not the server's, but its cores are: the engine,
the two servers, the feed, the load generator and the receiver all share this machine's. The ratio of the medians moves by several percent
between runs on a loaded machine: compare runs made one after another, and the load average.
The CPU each acknowledged create cost is given too (medians of the rounds): the server's
processes, its feed's included (Linux /proc), the engine's, and this process's, where the senders
and the receiver run. It moves much less with the machine's load than
throughput does. In AWS none of this runs in the write's
function: the stream is written by DynamoDB and read by the feed's own function.`,
      tables: [
        {
          columns: ['server', 'creates per second', 'p50 ms', 'p99 ms', 'not acknowledged'],
          rows: [
            ['no subscription', off.perSecond, off.p50, off.p99, off.failed],
            ['a subscription to every reaction change', on.perSecond, on.p50, on.p99, on.failed],
          ],
        },
        {
          columns: ['server', 'CPU ms per create: the server and its feed', 'the engine', 'the senders and the receiver'],
          rows: [
            ['no subscription', off.serverCpuMs ?? 'no /proc', off.engineCpuMs ?? 'no /proc', off.benchCpuMs],
            ['a subscription to every reaction change', on.serverCpuMs ?? 'no /proc', on.engineCpuMs ?? 'no /proc', on.benchCpuMs],
          ],
        },
        {
          columns: ['creates acknowledged with the feed', 'deliveries received', 'throughput with/without', 'p50 with/without'],
          rows: [[acknowledged, hook.received(), `${ratio(on.perSecond, off.perSecond)}x`, `${ratio(on.p50, off.p50)}x`]],
        },
      ],
      targets: [
        {
          what: 'throughput the local feed costs a write',
          measured: `${slower}% fewer creates per second`,
          target: '< 5%',
          met: slower < 5,
        },
        {
          what: 'every acknowledged create delivered',
          measured: `${hook.received()} deliveries of ${acknowledged} creates`,
          target: 'deliveries >= creates',
          met: hook.received() >= acknowledged,
        },
      ],
      notes: [],
      data: { rounds, seconds, off, on, acknowledged, delivered: hook.received() },
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await hook.close();
  }
}
