import { isExactNumber, isJsonObject } from '../json/exact-json';
import { LIMITS } from '../limits';
import * as z from '../zod';

/**
 * Keys that name JavaScript's object machinery. The body parser keeps them as own properties,
 * but code that assigns or looks one up reaches the prototype instead (an update of
 * `"__proto__"` changed no data and still bumped _version), so no request holds one: not as a
 * key at any depth, not as a part of a dotted field path, not as a name in `fields`.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const namesPrototype = (key: string) => key.split('.').some((part) => PROTOTYPE_KEYS.has(part));
const prototypeMessage = (key: string) => `${JSON.stringify(key)} is refused: __proto__, constructor and prototype name JavaScript's object machinery`;

/** The path of the first key (depth first, in order) that names a prototype key, or undefined. */
function prototypeKeyPath(value: unknown): PropertyKey[] | undefined {
  const pending: Array<[unknown, PropertyKey[]]> = [[value, []]];
  while (pending.length > 0) {
    const [node, path] = pending.pop()!;
    const children: Array<[PropertyKey, unknown]> = Array.isArray(node) ? node.map((child, i) => [i, child]) : isJsonObject(node) ? Object.entries(node) : [];
    for (const [key] of children) if (typeof key === 'string' && namesPrototype(key)) return [...path, key];
    for (const [key, child] of children.reverse()) pending.push([child, [...path, key]]);
  }
  return undefined;
}

const withoutPrototypeKeys = z.superRefine((value: unknown, ctx) => {
  const path = prototypeKeyPath(value);
  if (path) ctx.addIssue({ code: 'custom', path, message: prototypeMessage(String(path.at(-1))), input: value });
});

/**
 * The request bodies of the record operations. Filters and record data stay the caller's own
 * objects (zod only checks that they are objects and hold no prototype key), so exact numbers
 * reach the filter parser and the model validation untouched.
 */
export const jsonObject = z
  .custom<Record<string, unknown>>(isJsonObject, {
    error: (issue) => (issue.input === undefined ? 'required' : 'must be a JSON object'),
  })
  .check(withoutPrototypeKeys);

/** What a JSON value is, in JSON's words: a big number is a number, not the SDK's NumberValue. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isExactNumber(value)) return 'number';
  return typeof value;
}

/** Messages of a request body's type errors: "required" for a missing property, JSON type names otherwise. */
export const requestErrorMap: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_type') return undefined;
  return issue.input === undefined ? 'required' : `expected ${issue.expected}, received ${jsonTypeOf(issue.input)}`;
};

export const idSchema = z.string().check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(LIMITS.maxIdLength),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is this check's job
  z.regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters'),
  z.describe('Record id; any text without control characters'),
);

export const fieldsSchema = z
  .array(z.string().check(z.refine((name) => !namesPrototype(name), { error: (issue) => prototypeMessage(String(issue.input)) })))
  .check(z.minLength(1), z.maxLength(LIMITS.maxFields), z.describe('Return only these fields (id is always returned)'));
const consistent = z.optional(z.boolean()).check(z.describe('Strongly consistent read (base table only; costs twice as much)'));
const cursor = (description: string) => z.optional(z.string().check(z.maxLength(LIMITS.maxCursorLength))).check(z.describe(description));

export const createRequest = z.strictObject({
  data: z
    .union([jsonObject, z.array(jsonObject).check(z.minLength(1), z.maxLength(LIMITS.maxCreateBatch))], {
      error: (issue) => {
        if (issue.input === undefined) return 'required';
        if (!Array.isArray(issue.input)) return `must be a JSON object (one record) or an array of 1 to ${LIMITS.maxCreateBatch} of them`;
        const count = issue.input.length;
        if (count === 0 || count > LIMITS.maxCreateBatch) return `holds ${count} records; one request creates 1 to ${LIMITS.maxCreateBatch}`;
        return 'every record in the array must be a JSON object';
      },
    })
    .check(z.describe('One record, or an array of up to 100')),
  id: z.optional(idSchema).check(z.describe('Id for a single record; a time-ordered ULID otherwise')),
  ids: z.optional(z.array(idSchema)).check(z.describe('Ids for a batch, one per record in data')),
});

export const getOneRequest = z.strictObject({
  filters: jsonObject,
  fields: z.optional(fieldsSchema),
  consistent,
});

export const listRequest = z.strictObject({
  filters: z.optional(jsonObject),
  order_by: z.optional(z.union([z.string(), z.array(z.string()).check(z.maxLength(1))])).check(z.describe('"field" or "-field"; id or an indexed field')),
  limit: z.optional(z.int().check(z.gte(1), z.lte(LIMITS.maxPageSize))).check(z.describe(`Page size, default ${LIMITS.defaultPageSize}`)),
  cursor: cursor('next_cursor of the previous page'),
  fields: z.optional(fieldsSchema),
  consistent,
});

export const countRequest = z.strictObject({
  filters: z.optional(jsonObject),
  consistent,
});

const bulkGuard = {
  filters: jsonObject,
  allow_all: z
    .optional(z.boolean())
    .check(z.describe('Required (and then the admin scope) for an empty filter, or one that matches every record of a model holding 2 or more')),
  max_affected: z.optional(z.int().check(z.gte(0), z.lte(LIMITS.maxAffected))).check(z.describe('Refuse the whole operation (409) if more records match')),
  cursor: cursor('next_cursor of a call that stopped early (complete: false): goes on after the last record it reached'),
};

export const updateRequest = z.strictObject({
  ...bulkGuard,
  values: jsonObject.check(z.describe('Fields to set; null removes an optional field')),
});

export const deleteRequest = z.strictObject(bulkGuard);

/** The description a request schema gives a property (zod/mini keeps it in the global registry). */
export const descriptionOf = (schema: z.core.$ZodType): string => z.globalRegistry.get(schema)?.description ?? '';
