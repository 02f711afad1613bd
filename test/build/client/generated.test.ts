import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { generatedFiles, modelTypes } from '../../../scripts/client-types/generate';
import { defineModel } from '../../../shared/models/define';
import { allModels } from '../../../shared/models/every-model';

/**
 * The client package's generated types (client/src/generated/) are what `npm run client:types`
 * makes from the zod schemas now: a model or a request schema changed without running it fails
 * here, not in a user's compiler.
 */
const OUT = path.resolve(__dirname, '../../../client/src/generated');

const onDisk = (dir: string): string[] =>
  readdirSync(path.join(OUT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    return entry.isDirectory() ? onDisk(file) : [file];
  });

test('client/src/generated holds exactly what npm run client:types writes', () => {
  const expected = generatedFiles(allModels());
  expect(onDisk('').sort()).toEqual(Object.keys(expected).sort());
  for (const [file, text] of Object.entries(expected)) expect([file, readFileSync(path.join(OUT, file), 'utf8')]).toEqual([file, text]);
});

test("a model's generated data type leaves out its read-only fields and makes its owner and tenant fields optional; its record type has them", () => {
  const owned = defineModel({
    name: 'owned_generated',
    description: 'a note kept per owner within a tenant',
    schema: z.strictObject({ text: z.string(), by: z.string(), org: z.string(), state: z.enum(['a', 'b']).default('a') }),
    owner: 'by',
    tenant: { field: 'org', claim: 'org_id' },
    fields: { state: { readOnly: true } },
  });
  const text = modelTypes(owned);
  const block = (name: string) => new RegExp(`export type ${name} = \\{\\n([^}]*)\\n\\};`).exec(text)?.[1].replace(/\s+/g, ' ').trim();
  expect(block('OwnedGeneratedData')).toBe('text: string; by?: string; org?: string;');
  expect(block('OwnedGeneratedRecord')).toBe('text: string; by: string; org: string; state: "a" | "b";');
});
