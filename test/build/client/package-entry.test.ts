import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { build } from 'esbuild';
import * as path from 'node:path';
import { dependencies, exports as packageExports } from '../../../package.json';

const ROOT = path.resolve(__dirname, '../../..');

/** Every file a bundle of a package entry takes in, as esbuild resolves it. */
async function clientInputs(entry = packageExports['./client']): Promise<string[]> {
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

test('`recordgate/client`, resolved through the package exports as a project importing it would, is the typed client', async () => {
  // Node resolves a package's own name through its exports (self-reference), as it does for a dependent.
  const resolved = execFileSync(process.execPath, ['-p', "require.resolve('recordgate/client')"], { cwd: ROOT, encoding: 'utf8' }).trim();
  const entry = await import(resolved);
  expect(typeof entry.createClient).toBe('function');
  expect(typeof entry.JsonNumber).toBe('function');
  expect(entry.RecordgateError.prototype).toBeInstanceOf(Error);
});

test('importing the client loads no package at all, no AWS SDK among them: it has its own exact-number JSON', async () => {
  const inputs = await clientInputs();
  expect(inputs).toContain('client/src/json.ts');
  expect(inputs.filter((input) => input.includes('node_modules/'))).toEqual([]);
});

describe('the package as another project installs it', () => {
  /** The files `npm pack` puts in the tarball. */
  const packed = (): string[] => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    return pack.files.map((f: { path: string }) => f.path);
  };

  test('carries every file its entries load and no test, and needs only its dependencies', async () => {
    const files = packed();
    expect(files.filter((f) => f.startsWith('test/'))).toEqual([]);
    for (const entry of [packageExports['./client'], './shared/models/reaction.ts']) {
      const inputs = await clientInputs(entry);
      expect(inputs.filter((input) => !input.includes('node_modules/') && !files.includes(input))).toEqual([]);
      const packages = new Set(inputs.filter((i) => i.includes('node_modules/')).map((i) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(i)![1]));
      expect([...packages].filter((name) => !Object.hasOwn(dependencies, name))).toEqual([]);
    }
  });

  test('its postinstall does nothing in a project that installs it (no patch-package there), and exits 0', () => {
    const project = mkdtempSync(path.join(tmpdir(), 'recordgate-user-'));
    try {
      const installed = path.join(project, 'node_modules', 'recordgate', 'scripts');
      mkdirSync(installed, { recursive: true });
      copyFileSync(path.join(ROOT, 'scripts/postinstall.js'), path.join(installed, 'postinstall.js'));
      const run = spawnSync(process.execPath, [path.join(installed, 'postinstall.js')], {
        cwd: path.dirname(installed),
        env: { ...process.env, INIT_CWD: project },
      });
      expect({ status: run.status, stderr: run.stderr.toString() }).toEqual({ status: 0, stderr: '' });
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
