/**
 * A CPU profile of one warm handler, for finding where a request's time goes (issue 14):
 * `npx tsx scripts/bench/profile.ts create|onebot [calls]`. The SDK's network is replaced by
 * canned answers as in the warm-CPU bench; after 500 warm-up calls V8's sampling profiler
 * (50 µs) records `calls` more. Prints self time by package or source file and by function,
 * and writes the .cpuprofile (open it in Chrome DevTools) to the temporary directory.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { db } from '../../shared/store/client';
import { apiEvent, benchContext, groupMessage, ONEBOT_PATH, onebotHeaders } from './requests';
import { answerInProcess } from './responder';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

function top(counts: Map<string, number>, total: number, n: number): string[] {
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, c]) => `${((100 * c) / total).toFixed(1).padStart(5)}%  ${k}`);
}

async function main(): Promise<void> {
  const fn = process.argv[2] ?? 'create';
  const calls = Number(process.argv[3] ?? 3000);
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_REGION: 'us-east-1',
    TABLE_NAME: process.env.TABLE_NAME ?? 'bench',
    API_TOKENS: JSON.stringify({ 'bench-token': ['read', 'write', 'admin'] }),
    ONEBOT_SECRET: 'bench-onebot-secret',
  });
  answerInProcess(db(), {
    Query: () => ({ Items: [], Count: 0, ScannedCount: 0 }),
    PutItem: () => ({}),
    GetItem: () => ({}),
    UpdateItem: () => ({}),
    DeleteItem: () => ({}),
  });
  const { handler } = await import(`../../functions/${fn}/handler`);
  const raw = groupMessage(3_000_000_001, 1);
  const event =
    fn === 'onebot'
      ? apiEvent('POST', ONEBOT_PATH, raw, onebotHeaders('bench-onebot-secret', 3_000_000_001, raw))
      : apiEvent('POST', '/api/db/reaction/create', JSON.stringify({ data: { user_id: 1669571, user_name: 'octocat', content: '+1' } }), {
          authorization: 'Bearer bench-token',
        });
  // A fresh context per call: the handler honours the deadline it gives.
  const call = () => handler(event, benchContext(fn));
  const first = await call();
  if (first.statusCode >= 300) throw new Error(`${fn} answered ${first.statusCode}: ${first.body}`);
  for (let i = 0; i < 500; i++) await call();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  const cpu = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  const used = process.cpuUsage(cpu);
  const { profile } = await session.post('Profiler.stop');
  const file = join(tmpdir(), `recordgate-${fn}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));

  const nodes = new Map((profile.nodes as ProfileNode[]).map((n) => [n.id, n]));
  const group = (url: string) =>
    url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? url.match(/\/((?:shared|functions|scripts)\/.*)$/)?.[1] ?? (url || '(native)');
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const id of profile.samples ?? []) {
    const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
    byGroup.set(group(url), (byGroup.get(group(url)) ?? 0) + 1);
    const key = `${functionName || '(anonymous)'} ${group(url)}:${lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + 1);
  }
  const total = profile.samples?.length ?? 1;
  console.log(`${fn}: ${((used.user + used.system) / calls).toFixed(0)} µs CPU per call (profiler on), ${calls} calls; profile in ${file}`);
  console.log(`\nself time by package or file:\n${top(byGroup, total, 25).join('\n')}`);
  console.log(`\nself time by function:\n${top(byFunction, total, 30).join('\n')}`);
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
