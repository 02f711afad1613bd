import { isExactNumber, isJsonObject } from '../../json/exact-json';
import { LIMITS } from '../../limits';
import * as zm from '../../zod';

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

const withoutPrototypeKeys = zm.superRefine((value: unknown, ctx) => {
  const path = prototypeKeyPath(value);
  if (path) ctx.addIssue({ code: 'custom', path, message: prototypeMessage(String(path.at(-1))), input: value });
});

/**
 * What the record operations' request bodies are made of; each operation's own schema sits in its
 * module (shared/api/requests/<operation>.ts), so a function builds only its own at its cold start. Filters
 * and record data stay the caller's own objects (zod only checks that they are objects and hold
 * no prototype key), so exact numbers reach the filter parser and the model validation untouched.
 */
export const jsonObject = zm
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
export const requestErrorMap: zm.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_type') return undefined;
  return issue.input === undefined ? 'required' : `expected ${issue.expected}, received ${jsonTypeOf(issue.input)}`;
};

export const idSchema = zm.string().check(
  zm.minLength(1, 'must not be empty'),
  zm.maxLength(LIMITS.maxIdLength),
  // Unicode's control characters (category Cc: C0, DEL and C1), spelt as ranges so that the
  // document's pattern reads the same in every JSON Schema validator's regex dialect.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is this check's job
  zm.regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, 'must not contain control characters'),
  zm.describe(`Record id: 1 to ${LIMITS.maxIdLength} characters (Unicode code points), without control characters (U+0000-U+001F, U+007F-U+009F)`),
);

export const fieldsSchema = zm
  .array(zm.string().check(zm.refine((name) => !namesPrototype(name), { error: (issue) => prototypeMessage(String(issue.input)) })))
  .check(zm.minLength(1), zm.maxLength(LIMITS.maxFields), zm.describe('Return only these fields (id is always returned)'));
export const consistent = zm.optional(zm.boolean()).check(zm.describe('Strongly consistent read (base table only; costs twice as much)'));
export const cursor = (description: string) => zm.optional(zm.string().check(zm.maxLength(LIMITS.maxCursorLength))).check(zm.describe(description));

/** The guard of the bulk operations (update, delete): which records, and how many at most. */
export const bulkGuard = () => ({
  filters: jsonObject,
  allow_all: zm
    .optional(zm.boolean())
    .check(zm.describe('Required (and then the admin scope) for an empty filter, or one that matches every record of a model holding 2 or more')),
  max_affected: zm.optional(zm.int().check(zm.gte(0), zm.lte(LIMITS.maxAffected))).check(zm.describe('Refuse the whole operation (409) if more records match')),
  cursor: cursor('next_cursor of a call that stopped early (complete: false): goes on after the last record it reached'),
});

/** The description a request schema gives a property (zod/mini keeps it in the global registry). */
export const descriptionOf = (schema: zm.core.$ZodType): string => zm.globalRegistry.get(schema)?.description ?? '';
