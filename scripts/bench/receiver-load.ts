import { defaultRouteFor } from '../../shared/manifest/routes';
import { routeFor } from '../local/route-selection';
import type { BenchContext } from './context';
import type { Section } from './report';
import { groupMessage, ONEBOT_PATH, onebotHeaders } from './requests';
import { load, type Load, SENDERS, startServer } from './local-server';
import { ratio } from './stats';

const SECRET = 'bench-onebot-secret';
const SELF_ID = 3_000_000_002;

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
  const server = await startServer(ctx.endpoint, { ONEBOT_SECRET: SECRET });
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
