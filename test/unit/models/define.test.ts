import * as z from 'zod';
import { defineModel } from '../../../shared/models/define';
import { allModels } from '../../../shared/models/every-model';

const base = { name: 'thing', description: 'test' };

test('a model cannot declare id, a system field or a field that is not a plain name', () => {
  expect(() => defineModel({ ...base, schema: z.object({ id: z.string() }) })).toThrow(/collides/);
  expect(() => defineModel({ ...base, schema: z.object({ _version: z.number() }) })).toThrow(/collides/);
  expect(() => defineModel({ ...base, schema: z.object({ 'a.b': z.string() }) })).toThrow(/plain name/);
  expect(() => defineModel({ ...base, name: 'Bad-Name', schema: z.object({}) })).toThrow(/must match/);
});

test('indexed fields are strings or numbers, at most three; shards 1..64', () => {
  const schema = z.object({ a: z.string(), b: z.number().optional(), c: z.boolean(), d: z.string(), e: z.string() });
  expect(() => defineModel({ ...base, schema, indexed: ['c'] })).toThrow(/string or a number/);
  expect(() => defineModel({ ...base, schema, indexed: ['a', 'b', 'd', 'e'] })).toThrow(/has 3 index slots/);
  expect(() => defineModel({ ...base, schema, shards: 0 })).toThrow(/shards/);
  expect(defineModel({ ...base, schema, indexed: ['a', 'b'], shards: 8 })).toMatchObject({ indexed: ['a', 'b'], shards: 8, access: 'read_write' });
});

test('ttl names a number field of the model, optional or not', () => {
  const schema = z.object({ at: z.int(), maybe: z.number().optional(), name: z.string(), mixed: z.union([z.number(), z.string()]) });
  expect(() => defineModel({ ...base, schema, ttl: 'nope' as never })).toThrow(/ttl names nope, which is not a field/);
  expect(() => defineModel({ ...base, schema, ttl: 'name' })).toThrow(/ttl field name must be a number field/);
  expect(() => defineModel({ ...base, schema, ttl: 'mixed' })).toThrow(/must be a number field/);
  expect(defineModel({ ...base, schema, ttl: 'at' }).ttl).toBe('at');
  expect(defineModel({ ...base, schema, ttl: 'maybe' }).ttl).toBe('maybe');
  expect(defineModel({ ...base, schema })).not.toHaveProperty('ttl');
});

test('JSON Schemas: what callers send, and what is stored (defaults filled, stripped keys gone)', () => {
  const model = defineModel({ ...base, schema: z.object({ n: z.number().default(1), meta: z.object({ x: z.string() }).optional() }) });
  expect(model.jsonSchema.required ?? []).not.toContain('n');
  expect(model.storedSchema.required).toContain('n');
  expect(model.storedSchema.properties.meta).toMatchObject({ additionalProperties: false });
  expect(model.jsonSchema).not.toHaveProperty('$schema');
});

test('every built-in model builds its schemas', () => {
  for (const model of allModels()) {
    expect(Object.keys(model.jsonSchema.properties)).toEqual(Object.keys(model.schema.shape));
    expect(model.storedSchema.type).toBe('object');
  }
});
