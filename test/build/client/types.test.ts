import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/**
 * The typed client's filters, order_by and system fields at the type level: the fixture compiled
 * with this repository's compiler options.
 */
const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(__dirname, 'fixtures/filter-types.ts');
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b.*$/;

function errorLines(text: string): number[] {
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

const source = readFileSync(FIXTURE, 'utf8');
const lines = source.split('\n');
// A directive's line is blanked, not removed, so every other line keeps its number.
const expected = lines.flatMap((line, i) => (DIRECTIVE.test(line) ? [i + 2] : []));

// As written, tsc -p . compiles the fixture; without the directives, the lines under them, and
// only those, fail: so each directive stands for an error of its own line and nothing else fails.
test('without the @ts-expect-error directives, exactly the lines under them fail to compile', () => {
  expect(expected.length).toBeGreaterThanOrEqual(14);
  const bare = lines.map((line) => (DIRECTIVE.test(line) ? '' : line)).join('\n');
  expect([...new Set(errorLines(bare))]).toEqual(expected);
}, 60_000);
