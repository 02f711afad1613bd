import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * The shape of shared/ as docs/architecture.md draws it: layers that import only downward, so a
 * reader never has to go back up. Type-only imports count: a circle of types is still a circle a
 * reader walks.
 */
const ROOT = path.resolve(__dirname, '../../..');

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const child = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourcesUnder(child);
    return child.endsWith('.ts') && !child.endsWith('.d.ts') ? [child] : [];
  });
}

/** Each file's project-relative imports (static, dynamic and re-exports), resolved to files. */
function importGraph(dir: string): Map<string, string[]> {
  const resolve = (from: string, specifier: string): string[] => {
    const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
    return [`${base}.ts`, `${base}/index.ts`, base].filter((f) => f.endsWith('.ts') && existsSync(path.join(ROOT, f))).slice(0, 1);
  };
  return new Map(
    sourcesUnder(dir).map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
      return [file, importedFiles.filter((i) => i.fileName.startsWith('.')).flatMap((i) => resolve(file, i.fileName))];
    }),
  );
}

/** The circles of a graph: its strongly connected components of more than one node, or a node importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const shared = importGraph('shared');
/** A file's room: its folder under shared/, or the file itself for a floor module at shared/'s top. */
const roomOf = (file: string) => file.split('/').slice(0, 2).join('/');

test('no import circle among the files of shared/', () => {
  expect(circles(shared)).toEqual([]);
});

test('no import circle among the rooms of shared/: each room stands on the ones below it', () => {
  const rooms = new Map<string, string[]>();
  for (const [file, imports] of shared) {
    const room = roomOf(file);
    rooms.set(room, [...new Set([...(rooms.get(room) ?? []), ...imports.map(roomOf).filter((to) => to !== room)])]);
  }
  expect(circles(rooms)).toEqual([]);
});

test('shared/http is the top of shared/: nothing else in it imports shared/http', () => {
  const upward = [...shared].flatMap(([file, imports]) =>
    file.startsWith('shared/http/') ? [] : imports.filter((to) => to.startsWith('shared/http/')).map((to) => `${file} -> ${to}`),
  );
  expect(upward).toEqual([]);
});

test('shared/store keeps at most 12 files at its top; the rest are grouped by job', () => {
  const top = readdirSync(path.join(ROOT, 'shared/store'), { withFileTypes: true }).filter((entry) => entry.isFile());
  expect(top.length).toBeLessThanOrEqual(12);
});

test('a circle is found', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  expect(circles(graph)).toEqual([['a', 'b', 'c']]);
  expect(
    circles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
  ).toEqual([]);
});

test("one module carries the invocation's time: it alone keeps async context and asks Lambda for the time left", () => {
  const holders = (pattern: RegExp) => [...shared.keys()].filter((file) => pattern.test(readFileSync(path.join(ROOT, file), 'utf8')));
  expect(holders(/new AsyncLocalStorage\b/)).toHaveLength(1);
  expect(holders(/getRemainingTimeInMillis/)).toEqual(holders(/new AsyncLocalStorage\b/));
});
