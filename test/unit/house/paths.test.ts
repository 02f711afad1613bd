import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Every project path a reader is sent to exists: in README.md, docs/ (the benchmark history aside,
 * which quotes the tree as it was) and code comments. A `<placeholder>` or `*` stands for one path
 * segment, and some file must fit it.
 */
const ROOT = path.resolve(__dirname, '../../..');
const TOP = ['shared', 'functions', 'infra', 'scripts', 'test', 'docs', 'patches', 'client', '.ci'];
const HISTORY = ['docs/benchmark-history.md'];
// A path starts where a word does (not inside a URL or another path) and runs until a character no path of ours has.
const MENTION = new RegExp(`(?<![\\w./@-])(?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/(?:[\\w./*{}+-]|<[^<>\\s]*>)*`, 'g');

function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const child = `${dir}/${entry.name}`;
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    return entry.isDirectory() ? filesUnder(child) : [child];
  });
}

const docs = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) => f.endsWith('.md') && !HISTORY.includes(f));
const code = ['shared', 'functions', 'infra', 'scripts', 'test']
  .flatMap(filesUnder)
  .filter((f) => /\.(ts|js|mjs|cjs)$/.test(f))
  .concat(['jest.config.js'].filter((f) => existsSync(path.join(ROOT, f))));

/** The comments of a source file: its line and block comments, strings left out. */
const commentsOf = (source: string): string[] => [...source.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => m[0]);

function mentions(text: string): string[] {
  return [...text.matchAll(MENTION)].map((m) => m[0].replace(/[.,:;)]+$/, '')).filter((p) => !p.endsWith('/') || p.length > 1);
}

const segmentPattern = (segment: string) => new RegExp(`^${segment.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/<[^>]*>|\*|\{[^}]*\}/g, '.+')}$`);

/** Whether some file or folder fits `mention`, each placeholder standing for one segment; a module may omit `.ts`. */
function exists(mention: string): boolean {
  const segments = mention.replace(/\/$/, '').split('/');
  let found = ['.'];
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    const pattern = segmentPattern(segment);
    found = found.flatMap((dir) => {
      const full = path.join(ROOT, dir);
      if (!existsSync(full) || !statSync(full).isDirectory()) return [];
      return readdirSync(full)
        .filter((name) => pattern.test(name) || (last && /^[\w-]+$/.test(segment) && (name === `${segment}.ts` || name === `${segment}.js`)))
        .map((name) => `${dir}/${name}`);
    });
  }
  return found.length > 0;
}

test.each(docs)('every path %s names exists', (file) => {
  const missing = mentions(readFileSync(path.join(ROOT, file), 'utf8')).filter((m) => !exists(m));
  expect([...new Set(missing)]).toEqual([]);
});

test('every path a code comment names exists', () => {
  const missing = code.flatMap((file) =>
    commentsOf(readFileSync(path.join(ROOT, file), 'utf8'))
      .flatMap(mentions)
      .filter((m) => !exists(m))
      .map((m) => `${file}: ${m}`),
  );
  expect([...new Set(missing)]).toEqual([]);
});

test('a path that does not exist is found', () => {
  expect(mentions('see `shared/store/record.ts`, and shared/models/<name>.ts.')).toEqual(['shared/store/record.ts', 'shared/models/<name>.ts']);
  expect(exists('shared/store/record.ts')).toBe(false);
  expect(exists('shared/models/<name>.ts')).toBe(true);
  expect(mentions('https://github.com/aws/aws-cdk/blob/main/infra/x.ts')).toEqual([]);
});
