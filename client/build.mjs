// Builds dist/esm and dist/cjs from src with this repository's TypeScript: the ESM build as
// tsconfig.json says, the CommonJS one with module commonjs, marked by a package.json of its own
// so that Node and TypeScript read its .js and .d.ts as CommonJS. Run by the root postinstall
// (so a clean clone's `npm test` finds it) and before `npm pack`.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(new URL('dist', import.meta.url), { recursive: true, force: true });
const run = (...args) => execFileSync(process.execPath, [tsc, '-p', here, ...args], { cwd: here, stdio: 'inherit' });
run();
run('--module', 'commonjs', '--moduleResolution', 'node10', '--verbatimModuleSyntax', 'false', '--outDir', 'dist/cjs');
writeFileSync(new URL('dist/cjs/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' })}\n`);
