import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// LevelDB, as dynalite opens it: holding a folder open takes the very lock `npm start` takes.
const { Level } = createRequire(require.resolve('dynalite'))('level') as { Level: new (path: string) => { open(): Promise<void>; close(): Promise<void> } };

// The benchmark suite is a script; running its quick mode here keeps it from rotting. Only
// that it completes and writes a well-formed report is asserted: speed belongs to the figures.
// It runs as if the README's `npm start` were running: the data folder and the port the caller's
// environment names are held by someone else, so the bench must take folders and ports of its own.
test('npm run bench -- --quick runs every benchmark and writes the report, beside a running npm start', async () => {
  const out = mkdtempSync(join(tmpdir(), 'bench-quick-'));
  const heldDir = mkdtempSync(join(tmpdir(), 'bench-held-data-'));
  const heldData = new Level(heldDir);
  await heldData.open();
  const heldPort: Server = await new Promise((listening) => {
    const server = createServer().listen(0, '127.0.0.1', () => listening(server));
  });
  try {
    const child = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/bench/run.ts', '--quick', '--out', out], {
      env: {
        ...process.env,
        DATA_DIR: heldDir,
        PORT: String((heldPort.address() as { port: number }).port),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 170_000,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    const status = await new Promise<number | null>((exited) => child.once('close', (code) => exited(code)));
    expect(stderr).not.toMatch(/Error:/);
    expect(status).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'benchmarks.json'), 'utf8'));
    expect(report.quick).toBe(true);
    expect(report.sections.map((s: { id: string }) => s.id)).toEqual([
      'cold-start',
      'warm-cpu',
      'capacity',
      'scaling',
      'bulk',
      'receiver-load',
      'feed-cost',
      'aggregates',
    ]);
    for (const section of report.sections) expect(section.targets.length).toBeGreaterThan(0);
    const markdown = readFileSync(join(out, 'benchmarks.md'), 'utf8');
    expect(markdown).toContain('## How to reproduce');
    expect(readFileSync(join(out, 'benchmarks-scaling.svg'), 'utf8')).toMatch(/^<svg[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
  } finally {
    heldPort.close();
    await heldData.close();
    rmSync(out, { recursive: true, force: true });
    rmSync(heldDir, { recursive: true, force: true });
  }
}, 180_000);
