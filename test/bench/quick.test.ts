import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The benchmark suite is a script; running its quick mode here keeps it from rotting. Only
// that it completes and writes a well-formed report is asserted: speed belongs to the figures.
test('npm run bench -- --quick runs every benchmark and writes the report', () => {
  const out = mkdtempSync(join(tmpdir(), 'bench-quick-'));
  try {
    const run = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/bench/run.ts', '--quick', '--out', out], {
      encoding: 'utf8',
      timeout: 170_000,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    expect(run.stderr).not.toMatch(/Error:/);
    expect(run.status).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'benchmarks.json'), 'utf8'));
    expect(report.quick).toBe(true);
    expect(report.sections.map((s: { id: string }) => s.id)).toEqual(['cold-start', 'warm-cpu', 'capacity', 'scaling', 'bulk', 'receiver-load']);
    for (const section of report.sections) expect(section.targets.length).toBeGreaterThan(0);
    const markdown = readFileSync(join(out, 'benchmarks.md'), 'utf8');
    expect(markdown).toContain('## How to reproduce');
    expect(readFileSync(join(out, 'benchmarks-scaling.svg'), 'utf8')).toMatch(/^<svg[\s\S]*<polyline[\s\S]*<\/svg>\n$/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 180_000);
