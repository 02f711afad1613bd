import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { useApi } from '../support/api';

/**
 * Issue 36's Done-when: the client package built and packed (`npm pack` of a copy of client/,
 * which builds it first), installed from its tarball into empty projects (offline: it has no dependencies),
 * one ESM and one CommonJS, each with `tsc --init`'s defaults (strict, verbatimModuleSyntax,
 * exactOptionalPropertyTypes, noUncheckedIndexedAccess, module nodenext). There the program
 * (client-package/program.ts) and the README's client snippet compile under TypeScript 5 and 7,
 * and the program runs against the local server through a proxy that loses the first answer of a
 * keyed create to a 503, answers a read and an unkeyed write 503, and holds requests forever.
 */
const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const api = useApi();
delete process.env.API_TOKENS;

const COMPILERS = { 'TypeScript 5': path.join(ROOT, 'node_modules/typescript/bin/tsc'), 'TypeScript 7': path.join(ROOT, 'node_modules/typescript7/bin/tsc') };
const PROGRAM = readFileSync(path.join(__dirname, 'client-package/program.ts'), 'utf8');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const DOC_URL = 'http://127.0.0.1:3000';

/** The README's client block: the one ```ts block that imports recordgate-client. */
const readmeSnippet = (): string => {
  const blocks = [...README.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((code) => code.includes("from 'recordgate-client'"));
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
};

/** The program as a CommonJS module writes its imports under verbatimModuleSyntax. */
const asCommonJs = (program: string) =>
  program
    .replace(
      "import { createClient, JsonNumber, RecordgateError } from 'recordgate-client';",
      "import client = require('recordgate-client');\nconst { createClient, JsonNumber, RecordgateError } = client;",
    )
    .replace("import { reaction } from 'recordgate-client/models';", "import models = require('recordgate-client/models');\nconst { reaction } = models;");

interface Seen {
  path: string;
  key: string | undefined;
  body: string;
}

/** The 503 stand-in between client and server: what it saw, and its rules by a marker in the body. */
function startProxy(target: string): Promise<{ server: Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const once = new Set<string>();
  const firstTime = (what: string) => !once.has(what) && once.add(what) !== undefined;
  const unavailable = (res: import('node:http').ServerResponse) =>
    res
      .writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' })
      .end(JSON.stringify({ status: 'error', message: 'stand-in', data: { error: 'outcome_unknown' } }));
  const forward = async (req: IncomingMessage, body: string) =>
    fetch(`${target}${req.url}`, {
      method: req.method,
      headers: Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<
        string,
        string
      >,
      ...(req.method === 'GET' ? {} : { body }),
    });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const key = req.headers['idempotency-key'] as string | undefined;
    seen.push({ path: req.url ?? '', key, body });
    if (body.includes('hold-me')) return; // never answered
    if (body.includes('unkeyed-503')) return unavailable(res);
    if (req.url?.endsWith('/count') && body.includes('retry-me') && firstTime(`count ${body}`)) return unavailable(res);
    const answer = await forward(req, body);
    const text = await answer.text();
    // The first answer of a keyed create is lost after the server wrote it.
    if (req.url?.endsWith('/create') && body.includes('retry-me') && firstTime(`create ${key}`)) return unavailable(res);
    res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(text);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })),
  );
}

let dir: string;
let proxy: Awaited<ReturnType<typeof startProxy>>;
const projects = { esm: 'module', cjs: 'commonjs' } as const;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'client-package-'));
  const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' } });
  // Built and packed from a copy of client/, so that the build (its prepack) never empties the
  // client/dist that other suites of the same run read.
  const source = path.join(dir, 'source');
  cpSync(path.join(ROOT, 'client'), source, { recursive: true, filter: (from) => !from.includes(`${path.sep}dist`) });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
  const { stdout } = await npm(['pack', '--json', '--pack-destination', dir], source);
  const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  for (const [name, type] of Object.entries(projects)) {
    const project = path.join(dir, name);
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: `client-user-${name}`, private: true, type }));
    await npm(['install', path.join(dir, filename), '--offline', '--no-audit', '--no-fund'], project);
    await run(process.execPath, [COMPILERS['TypeScript 5'], '--init'], { cwd: project });
  }
  proxy = await startProxy(api.url);
}, 120_000);
afterAll(() => {
  proxy?.server.closeAllConnections();
  proxy?.server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the built .js and .d.ts, no sources, and the package has no dependencies', () => {
  const installed = path.join(dir, 'esm/node_modules/recordgate-client');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
  expect(manifest.dependencies).toBeUndefined();
  expect(readFileSync(path.join(installed, 'dist/cjs/index.js'), 'utf8')).toContain('exports.createClient');
  expect(readFileSync(path.join(installed, 'dist/esm/index.d.ts'), 'utf8')).toContain('createClient');
  expect(readdirSync(installed).sort()).toEqual(['dist', 'package.json']);
  const lock = JSON.parse(readFileSync(path.join(dir, 'esm/package-lock.json'), 'utf8'));
  expect(Object.keys(lock.packages)).toEqual(['', 'node_modules/recordgate-client']);
});

describe.each(Object.entries(COMPILERS))('%s, tsc --init defaults', (_compiler, tsc) => {
  test.each(Object.keys(projects))(
    'the program and the README snippet compile in the %s project',
    async (name) => {
      const project = path.join(dir, name);
      writeFileSync(path.join(project, 'program.ts'), name === 'cjs' ? asCommonJs(PROGRAM) : PROGRAM);
      if (name === 'esm') writeFileSync(path.join(project, 'readme.ts'), readmeSnippet());
      const result = await run(process.execPath, [tsc, '-p', '.', '--noEmit'], { cwd: project }).catch((error: { stdout: string }) => error);
      expect(result.stdout).toBe('');
    },
    60_000,
  );
});

test.each(Object.keys(projects))(
  'the %s program filters, pages, creates under a key through a lost answer, retries a read, cancels',
  async (name) => {
    const project = path.join(dir, name);
    const tag = `client-package-${name}`;
    const program = (name === 'cjs' ? asCommonJs(PROGRAM) : PROGRAM).replace(DOC_URL, proxy.url).replace("'client-package'", `'${tag}'`);
    writeFileSync(path.join(project, 'program.ts'), program);
    await run(process.execPath, [COMPILERS['TypeScript 5'], '-p', '.'], { cwd: project });
    const { stdout } = await run(process.execPath, ['program.js'], { cwd: project });
    const out = JSON.parse(stdout);
    expect(out).toEqual({
      paged: expect.any(Array),
      created: { id: expect.any(String), user_id: '18446744073709551617', version: 1 },
      count: 1,
      unkeyed: '503 outcome_unknown',
      cancelled: 'AbortError',
      timedOut: 'TimeoutError',
    });
    expect([...out.paged].sort()).toEqual(Array.from({ length: 20 }, (_, i) => 1005 + i));

    const mine = proxy.seen.filter((s) => s.body.includes(tag));
    const creates = (marker: string) => mine.filter((s) => s.path.endsWith('/create') && s.body.includes(marker));
    // Every write carries a key unless told not to: a generated UUID by default.
    expect(creates('-page')[0]?.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(creates('retry-me').map((s) => s.key)).toEqual([`${tag}-key`, `${tag}-key`]);
    expect(creates('unkeyed-503').map((s) => s.key)).toEqual([undefined]);
    expect(mine.filter((s) => s.path.endsWith('/count') && s.body.includes('retry-me'))).toHaveLength(2);
    // Pages of 7 over 20 matches: 3 pages at least, each after the first sent with the cursor before it.
    expect(mine.filter((s) => s.path.endsWith('/list') && s.body.includes('-page')).length).toBeGreaterThanOrEqual(3);

    // What is stored: the keyed create once, with every digit; the unkeyed write never reached it.
    const stored = await api.post('/api/db/reaction/list', { filters: { content: { $begins_with: tag } }, limit: 100 });
    const contents = stored.body.data.items.map((item: { content: string }) => item.content);
    expect(contents.filter((c: string) => c.endsWith('retry-me'))).toHaveLength(1);
    expect(contents.filter((c: string) => c.endsWith('unkeyed-503'))).toHaveLength(0);
    expect(String(stored.body.data.items.find((item: { id: string }) => item.id === out.created.id)?.user_id)).toBe('18446744073709551617');
  },
  120_000,
);
