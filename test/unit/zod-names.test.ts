import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Two zod APIs live side by side: zod/mini through shared/zod.ts on every cold-start path, and
// the full API where the document or the client need it. Their calls look alike (`z.string()`
// exists in both) but their methods do not, so each keeps one name in every file.
const ROOT = path.resolve(__dirname, '../..');
const sources = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('node_modules'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
const FILES = ['shared', 'functions', 'infra', 'scripts', 'test'].flatMap(sources);

test('every file names zod/mini zm and full zod z', () => {
  const misnamed: string[] = [];
  for (const file of FILES) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    for (const [, name, from] of text.matchAll(/import (?:type )?\* as (\w+) from '([^']*)'/g)) {
      const mini = /^(\.\.?\/)+(shared\/)?zod$/.test(from);
      const full = from === 'zod' || from === 'zod/v4';
      if ((mini && name !== 'zm') || (full && name !== 'z')) misnamed.push(`${file}: ${name} from '${from}'`);
    }
  }
  expect(misnamed).toEqual([]);
});
