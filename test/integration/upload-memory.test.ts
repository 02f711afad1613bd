import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServe, stopServe, type ServeProcess } from '../../scripts/local/serve-process';

// Issue 30, finding 5: bodies under the HTTP API's 10 MB but over Lambda's 6 MB were read whole
// before their 413, and the memory stayed (100 concurrent bodies of 9.9 MB: the server's RSS at
// 1,038 MB, still 952 MB 20 s later). A process test of npm start, so dynalite only.
const onEmbeddedEngine = process.env.RG_TEST_ENGINE === 'dynalite' ? describe : describe.skip;

const UPLOADS = 100;
const BODY = Buffer.alloc(Math.round(9.9 * 1024 * 1024), 'x');
const SENT_MB = (UPLOADS * BODY.length) / 1024 / 1024;
/** What the server may still hold once the uploads are answered: a small share of what was sent. */
const HELD_MB = SENT_MB / 5;

let server: ServeProcess | undefined;
let dataDir: string | undefined;
afterAll(async () => {
  if (server) await stopServe(server, 'SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The served process's resident memory, as the kernel counts it. */
const rssMb = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** One upload of `body` as JSON with its Content-Length: the status it got, or the transport error instead. */
function upload(url: string, body: Buffer): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      `${url}/api/db/reaction/create`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    // Once answered, the server may cut the rest of the upload: that is not a failure.
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

/** Waits (polling) until `condition` holds, or `ms` passed. */
async function within(ms: number, condition: () => boolean): Promise<void> {
  const giveUp = Date.now() + ms;
  while (!condition() && Date.now() < giveUp) await new Promise((resolve) => setTimeout(resolve, 250));
}

onEmbeddedEngine("a body over Lambda's 6 MB", () => {
  test(`${UPLOADS} concurrent bodies of 9.9 MB are answered 413, and the server does not keep them`, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'recordgate-uploads-'));
    server = spawnServe({ DATA_DIR: dataDir });
    const url = await server.ready;
    const pid = server.child.pid!;
    // The gateway's 413 path warmed once, so the baseline holds what it loads.
    expect(await upload(url, BODY)).toBe(413);
    const before = rssMb(pid);
    const answers = await Promise.all(Array.from({ length: UPLOADS }, () => upload(url, BODY)));
    expect(answers.filter((a) => a !== 413)).toEqual([]);
    // Memory, not time: the server's RSS must come back within a small share of what was sent;
    // 20 s (the measure) is only how long it gets to.
    const grownMb = () => rssMb(pid) - before;
    await within(20_000, () => grownMb() < HELD_MB);
    expect(Math.round(grownMb())).toBeLessThan(HELD_MB);
  }, 120_000);
});
