import { build } from 'esbuild';
import * as path from 'node:path';
import { exports as packageExports } from '../../../package.json';

const ROOT = path.resolve(__dirname, '../../..');

/** Every file a bundle of the client's package entry takes in, as esbuild resolves it. */
async function clientInputs(): Promise<string[]> {
  const result = await build({
    entryPoints: [path.join(ROOT, packageExports['./client'])],
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

test('the package entry recordgate/client is shared/client', () => {
  expect(packageExports['./client']).toBe('./shared/client/index.ts');
});

test('importing the client loads no AWS SDK module: it has its own exact-number type', async () => {
  const inputs = await clientInputs();
  expect(inputs).toContain('shared/client/json-number.ts');
  expect(inputs.some((input) => input.includes('node_modules/lossless-json/'))).toBe(true);
  expect(inputs.filter((input) => input.includes('@aws-sdk') || input.includes('@smithy'))).toEqual([]);
});
