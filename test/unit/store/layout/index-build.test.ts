import * as z from 'zod';
import { defineModel } from '../../../../shared/models/define';
import { schemaFingerprint } from '../../../../shared/store/layout/index-build';

const model = (name: string, shards: number, rank: z.ZodType) =>
  defineModel({ name, description: 'test', schema: z.strictObject({ title: z.string(), rank }), indexed: ['title'], shards });

test("a model's schema fingerprint follows its stored schema only: not its name or shards, but a field's type", () => {
  expect(schemaFingerprint(model('a', 1, z.number()))).toBe(schemaFingerprint(model('b', 4, z.number())));
  expect(schemaFingerprint(model('a', 1, z.number()))).not.toBe(schemaFingerprint(model('a', 1, z.string())));
  expect(schemaFingerprint(model('a', 1, z.number()))).not.toBe(schemaFingerprint(model('a', 1, z.number().optional())));
});
