import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/**
 * The typed client's filters, order_by and system fields at the type level: each fixture compiled
 * with this repository's compiler options (filter-types.ts through the forked layout's
 * shared/client, package-types.ts through the built package recordgate-client).
 */
const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(__dirname, 'fixtures');
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b.*$/;

function errorLines(FIXTURE: string, text: string): number[] {
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (path.resolve(file) === FIXTURE ? text : readFile(file));
  const program = ts.createProgram([FIXTURE], { ...options, noEmit: true }, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && path.resolve(d.file.fileName) === FIXTURE)
    .map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1);
}

// As written, tsc -p . compiles each fixture; without the directives, the lines under them, and
// only those, fail: so each directive stands for an error of its own line and nothing else fails.
test.each(readdirSync(FIXTURES).filter((name) => name.endsWith('.ts')))(
  '%s: without the @ts-expect-error directives, exactly the lines under them fail to compile',
  (name) => {
    const fixture = path.join(FIXTURES, name);
    const lines = readFileSync(fixture, 'utf8').split('\n');
    // A directive's line is blanked, not removed, so every other line keeps its number.
    const expected = lines.flatMap((line, i) => (DIRECTIVE.test(line) ? [i + 2] : []));
    expect(expected.length).toBeGreaterThanOrEqual(7);
    const bare = lines.map((line) => (DIRECTIVE.test(line) ? '' : line)).join('\n');
    expect([...new Set(errorLines(fixture, bare))]).toEqual(expected);
  },
  60_000,
);
