import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { defaultRouteFor } from '../../shared/manifest/routes';
import { routeFor } from '../local/route-selection';
import type { BenchContext } from './context';
import type { Section } from './report';
import { groupMessage, ONEBOT_PATH, onebotHeaders } from './requests';
import { quantile, ratio, round } from './stats';

const SENDERS = 16;
const SECRET = 'bench-onebot-secret';
const SELF_ID = 3_000_000_002;

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `npm start` in a child process (the local server, the deployed handlers) against the bench engine. */
async function startServer(endpoint: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/serve.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DYNAMODB_ENDPOINT: endpoint, ONEBOT_SECRET: SECRET, API_TOKENS: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`local server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => line.includes('listening on') && resolve());
  });
  child.removeAllListeners('exit');
  // Its stdout stays read until it exits, or its shutdown message would hit a closed pipe.
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => {
      child.kill();
      return exited;
    },
  };
}

interface Load {
  sent: number;
  ok: number;
  failed: Record<string, number>;
  perSecond: number;
  p50: number;
  p99: number;
}

/** `SENDERS` loops, each sending its next request as soon as the last is answered, for `seconds`. */
async function load(
  seconds: number,
  next: (n: number) => { path: string; method: string; body?: string; headers?: Record<string, string> },
  url: string,
): Promise<Load> {
  const latencies: number[] = [];
  const failed: Record<string, number> = {};
  let counter = 0;
  let ok = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      while (performance.now() < deadline) {
        const request = next(counter++);
        const t = performance.now();
        try {
          const response = await fetch(`${url}${request.path}`, { method: request.method, body: request.body, headers: request.headers });
          await response.arrayBuffer();
          if (response.status < 300) ok++;
          else failed[response.status] = (failed[response.status] ?? 0) + 1;
        } catch (error) {
          failed[(error as Error).name] = (failed[(error as Error).name] ?? 0) + 1;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { sent: counter, ok, failed, perSecond: round(ok / elapsed), p50: round(quantile(latencies, 0.5)), p99: round(quantile(latencies, 0.99)) };
}

async function storedEvents(url: string): Promise<number> {
  const response = await fetch(`${url}/api/db/onebot_event/count`, { method: 'POST', body: '{"consistent": true}' });
  const body = (await response.json()) as { data: { count: number } };
  return body.data.count;
}

export async function receiverLoadBench(ctx: BenchContext): Promise<Section> {
  const seconds = ctx.quick ? 5 : 30;
  const baselineSeconds = ctx.quick ? 2 : 10;
  const base = {
    id: 'receiver-load',
    title: 'OneBot receiver under load',
    method: `
The local server (\`npm start\`, the deployed handlers behind the API Gateway event shape) runs in a child
process against the bench engine. ${SENDERS} concurrent senders post signed OneBot 11 group messages
(\`X-Self-ID\`, \`X-Signature: sha1=<HMAC of the raw body>\`, each event unique) to \`POST ${ONEBOT_PATH}\`
for ${seconds} s, each sending its next event as soon as the last is answered. The baseline is the same
load on \`GET /api/db/health\` (one GetItem through the same server) for ${baselineSeconds} s. Afterwards the stored
events are counted through the record API (\`onebot_event/count\`, consistent). The load generator, the
server and the engine share this machine's cores.`,
  };
  if (!routeFor('POST', ONEBOT_PATH) && !defaultRouteFor('POST', ONEBOT_PATH)) {
    return {
      ...base,
      tables: [],
      targets: [{ what: 'every event stored exactly once', measured: 'receiver not routed yet', target: 'stored = accepted', met: null }],
      notes: [],
      data: null,
    };
  }
  const server = await startServer(ctx.endpoint);
  try {
    const before = await storedEvents(server.url);
    const baseline = await load(baselineSeconds, () => ({ method: 'GET', path: '/api/db/health' }), server.url);
    const receiver = await load(
      seconds,
      (n) => {
        const body = groupMessage(SELF_ID, n);
        return { method: 'POST', path: ONEBOT_PATH, body, headers: onebotHeaders(SECRET, SELF_ID, body) };
      },
      server.url,
    );
    const stored = (await storedEvents(server.url)) - before;
    ctx.log(`receiver: ${receiver.perSecond} events/s, p50 ${receiver.p50} ms, p99 ${receiver.p99} ms; ${stored} stored of ${receiver.ok} accepted`);
    const row = (name: string, l: Load) => [
      name,
      l.sent,
      l.ok,
      Object.entries(l.failed)
        .map(([k, v]) => `${k}×${v}`)
        .join(', ') || 'none',
      l.perSecond,
      l.p50,
      l.p99,
    ];
    return {
      ...base,
      tables: [
        {
          columns: ['load', 'sent', 'accepted', 'failed', 'per second', 'p50 ms', 'p99 ms'],
          rows: [row(`OneBot events, ${seconds} s`, receiver), row(`baseline: GET /api/db/health, ${baselineSeconds} s`, baseline)],
        },
        {
          columns: ['events accepted', 'events stored', 'throughput vs baseline', 'p50 vs baseline'],
          rows: [[receiver.ok, stored, `${ratio(receiver.perSecond, baseline.perSecond)}x`, `${ratio(receiver.p50, baseline.p50)}x`]],
        },
      ],
      targets: [
        {
          what: 'every event stored exactly once',
          measured: `${stored} stored of ${receiver.ok} accepted, ${receiver.sent - receiver.ok} refused`,
          target: 'stored = accepted = sent',
          met: stored === receiver.ok && receiver.ok === receiver.sent,
        },
      ],
      notes: [],
      data: { seconds, senders: SENDERS, receiver, baseline, stored },
    };
  } finally {
    await server.stop();
  }
}
