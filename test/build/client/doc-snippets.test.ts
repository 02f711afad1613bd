import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/**
 * docs/client.md's TypeScript examples, compiled in order as one module of a user's project (a
 * later example uses what an earlier one declared) against the built package recordgate-client:
 * an example that stops compiling after a change of the client fails here, not in a user's editor.
 */
const ROOT = path.resolve(__dirname, '../../..');
const DOC = path.join(ROOT, 'docs/client.md');
// A file beside the fixtures, so that the package resolves as it does for them; never written.
const SNIPPETS = path.join(__dirname, 'fixtures', 'client-doc-snippets.ts');

const examples = (markdown: string): string[] => [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

test('every TypeScript example of docs/client.md compiles against the built package', () => {
  const blocks = examples(readFileSync(DOC, 'utf8'));
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  const text = `${blocks.join('\n')}\nexport {};\n`;
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (file) => (path.resolve(file) === SNIPPETS ? text : readFile(file));
  host.fileExists = (file) => path.resolve(file) === SNIPPETS || fileExists(file);
  const program = ts.createProgram([SNIPPETS], { ...options, noEmit: true, noUnusedLocals: false }, host);
  const errors = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && path.resolve(d.file.fileName) === SNIPPETS)
    .map((d) => `${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(errors).toEqual([]);
}, 60_000);
