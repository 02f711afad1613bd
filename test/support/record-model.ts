import { ERROR_STATUS } from '../../shared/errors';
import { compareDecimal } from '../../shared/json/decimal';
import { isExactNumber, isJsonObject, numberText } from '../../shared/json/exact-json';
import type { CompareOp, FilterNode } from '../../shared/store/filter/ast';
import { compareForOrder, matches, sameValue, type Item } from './filter-reference';
import { utf8Order } from '../../shared/store/utf8-order';

/**
 * The record API as docs/record-api.md describes it, in memory: records with their versions and
 * system fields, create (ids given or made, conflicts, all or nothing), update (null removes a
 * field, and the update operators and upsert of issue 32), delete, the bulk guards (empty_filter, matches_all, too_many_matches), list positions
 * held across writes, count and get_one; get_one's ETag with If-Match and If-None-Match: *, and
 * transactions across models (issue 32). Filter meaning and order are the filter reference's
 * (test/support/filter-reference.ts); which filters are refused, and how, is read here from a
 * hand-written description of the model's fields, not from its zod schema or the service's parser.
 * test/integration/record-model.test.ts holds the service to it, step by step.
 */
export type Kind = 'string' | 'number' | 'boolean' | 'array' | 'object';

export interface FieldSpec {
  kinds: Kind[];
  required?: boolean;
  /** A number's lower bound. */
  min?: number;
  /** An object's properties. */
  props?: Record<string, FieldSpec>;
  /** An array's elements. */
  items?: FieldSpec;
}

export interface ModelSpec {
  name: string;
  shards: number;
  fields: Record<string, FieldSpec>;
  indexed: string[];
}

/** A refusal: its status and every code the request could be refused with (a body with several problems may name any of them). */
export interface Refusal {
  status: number;
  codes: string[];
  /** A conflict's ids. */
  ids?: string[];
  /** A 412's current tag: null for no record, 'new' for one the reference has not been told yet. */
  etag?: string | null;
  /** A refused transaction's operation (its index) and reason. */
  operation?: number;
  reason?: string;
  /** A transaction's 422: the operations its details may name. */
  operations?: number[];
}

const STATUS: Record<string, number> = ERROR_STATUS;

const refuse = (...codes: string[]): Refusal => ({ status: STATUS[codes[0]], codes });

const SYSTEM_FIELDS: Record<string, FieldSpec> = {
  id: { kinds: ['string'] },
  _created_at: { kinds: ['string'] },
  _updated_at: { kinds: ['string'] },
  _version: { kinds: ['number'] },
};

const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'];

/** Whether a key such as "__proto__" appears anywhere in a value (own keys, at any depth). */
export function hasForbiddenKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasForbiddenKey);
  if (!isJsonObject(value)) return false;
  return Object.keys(value).some((k) => FORBIDDEN_KEYS.includes(k) || hasForbiddenKey(value[k]));
}

function kindOf(value: unknown): Kind | 'null' {
  if (value === null) return 'null';
  if (isExactNumber(value)) return 'number';
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  return typeof value as Kind;
}

function ordered(a: unknown, b: unknown): number {
  return isExactNumber(a) && isExactNumber(b) ? compareDecimal(numberText(a), numberText(b)) : utf8Order(String(a), String(b));
}

const NOTHING: FilterNode = { kind: 'and', items: [] };

/** A filter as the docs define it: its meaning, or the codes it is refused with. */
class FilterReader {
  readonly problems = new Set<string>();

  constructor(private readonly spec: ModelSpec) {}

  node(value: unknown): FilterNode {
    if (!isJsonObject(value)) return this.bad('invalid_filter');
    const items: FilterNode[] = [];
    for (const [key, operand] of Object.entries(value)) {
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(operand) || operand.length === 0) items.push(this.bad('invalid_filter'));
        else items.push({ kind: key === '$and' ? 'and' : 'or', items: operand.map((f) => this.node(f)) });
      } else if (key === '$not') items.push({ kind: 'not', item: this.node(operand) });
      else if (key.startsWith('$')) items.push(this.bad('invalid_filter'));
      else items.push(this.field(key, operand));
    }
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private bad(code: string): FilterNode {
    this.problems.add(code);
    return NOTHING;
  }

  /** An unknown path at any depth is unknown_field. */
  private target(key: string): { field: string; path: string[]; spec: FieldSpec } | undefined {
    const [field, ...rest] = key.split('.');
    if (Object.hasOwn(SYSTEM_FIELDS, field)) return rest.length === 0 ? { field, path: [field], spec: SYSTEM_FIELDS[field] } : undefined;
    if (!Object.hasOwn(this.spec.fields, field)) return undefined;
    let spec = this.spec.fields[field];
    for (const segment of rest) {
      if (!spec.props || !Object.hasOwn(spec.props, segment)) return undefined;
      spec = spec.props[segment];
    }
    return { field, path: ['d', field, ...rest], spec };
  }

  private field(key: string, operand: unknown): FilterNode {
    const target = this.target(key);
    if (!target) return this.bad('unknown_field');
    return this.condition(target, operand);
  }

  private condition(target: { field: string; path: string[]; spec: FieldSpec }, operand: unknown): FilterNode {
    const compare = (op: CompareOp, operands: unknown[]): FilterNode => ({ kind: 'compare', field: target.field, path: target.path, op, operands });
    const spec = target.spec;
    if (operand === null) return compare('null', []);
    if (Array.isArray(operand)) return this.list(spec, operand) ? compare('in', operand) : NOTHING;
    if (!isJsonObject(operand) || !Object.keys(operand).some((k) => k.startsWith('$'))) return this.typed(spec, operand) ? compare('eq', [operand]) : NOTHING;
    const keys = Object.keys(operand);
    if (!keys.every((k) => k.startsWith('$'))) return this.bad('invalid_filter');
    const items = keys.map((name): FilterNode => {
      const value = operand[name];
      switch (name) {
        case '$not':
          return isJsonObject(value) ? { kind: 'not', item: this.condition(target, value) } : this.bad('invalid_filter');
        case '$eq':
          if (value === null) return compare('null', []);
          return this.typed(spec, value) ? compare('eq', [value]) : NOTHING;
        case '$ne':
          if (value === null) return { kind: 'not', item: compare('null', []) };
          return this.typed(spec, value) ? compare('ne', [value]) : NOTHING;
        case '$in':
        case '$nin':
          return Array.isArray(value) && this.list(spec, value) ? compare(name === '$in' ? 'in' : 'nin', value) : this.bad('invalid_filter');
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
          return this.ordered(spec, value) ? compare(name.slice(1) as CompareOp, [value]) : NOTHING;
        case '$between': {
          if (!Array.isArray(value) || value.length !== 2) return this.bad('invalid_filter');
          const [low, high] = value;
          if (!this.ordered(spec, low) || !this.ordered(spec, high)) return NOTHING;
          if (kindOf(low) !== kindOf(high) || ordered(low, high) > 0) return this.bad('invalid_filter');
          return compare('between', [low, high]);
        }
        case '$exists':
          if (typeof value !== 'boolean') return this.bad('invalid_filter');
          return value ? { kind: 'not', item: compare('null', []) } : compare('null', []);
        case '$begins_with':
          if (typeof value !== 'string' || !spec.kinds.includes('string')) return this.bad('invalid_filter');
          return compare('begins_with', [value]);
        case '$contains':
          if (spec.kinds.includes('array')) return this.typed(spec.items!, value) ? compare('contains', [value]) : NOTHING;
          if (typeof value !== 'string' || !spec.kinds.includes('string')) return this.bad('invalid_filter');
          return compare('contains', [value]);
        default:
          return this.bad('invalid_filter');
      }
    });
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  /**
   * An operand the field can never hold is invalid_filter, never "no match": a kind it cannot
   * hold, at any depth inside the operand (an element of an array, a property of an object, or a
   * property the object does not declare).
   */
  private typed(spec: FieldSpec, value: unknown): boolean {
    const holds = (field: FieldSpec, operand: unknown): boolean => {
      const kind = kindOf(operand);
      if (kind === 'null' || !field.kinds.includes(kind)) return false;
      if (kind === 'array' && field.items) return (operand as unknown[]).every((element) => holds(field.items!, element));
      if (kind === 'object' && field.props) {
        return Object.entries(operand as Record<string, unknown>).every(
          ([name, inner]) => Object.hasOwn(field.props!, name) && holds(field.props![name], inner),
        );
      }
      return true;
    };
    if (holds(spec, value)) return true;
    this.problems.add('invalid_filter');
    return false;
  }

  private ordered(spec: FieldSpec, value: unknown): boolean {
    if (typeof value !== 'string' && !isExactNumber(value)) {
      this.problems.add('invalid_filter');
      return false;
    }
    return this.typed(spec, value);
  }

  private list(spec: FieldSpec, values: unknown[]): boolean {
    if (values.length === 0) return !this.problems.add('invalid_filter');
    return values.map((v) => this.typed(spec, v)).every(Boolean);
  }
}

/** A filter's meaning, or the codes it is refused with. */
export function readFilter(spec: ModelSpec, filters: unknown): { node: FilterNode } | { codes: string[] } {
  const reader = new FilterReader(spec);
  const node = reader.node(filters ?? {});
  return reader.problems.size > 0 ? { codes: [...reader.problems] } : { node };
}

/** Whether data is a valid record of the model (strict objects, required fields, kinds). */
export function validData(fields: Record<string, FieldSpec>, data: unknown): boolean {
  if (!isJsonObject(data)) return false;
  const valid = (spec: FieldSpec, value: unknown): boolean => {
    const kind = kindOf(value);
    if (kind === 'null' || !spec.kinds.includes(kind)) return false;
    if (kind === 'number' && spec.min !== undefined && compareDecimal(numberText(value as number), String(spec.min)) < 0) return false;
    if (kind === 'array') return !spec.items || (value as unknown[]).every((v) => valid(spec.items!, v));
    if (kind === 'object' && spec.props) return validData(spec.props, value);
    return true;
  };
  return (
    Object.keys(data).every((k) => Object.hasOwn(fields, k) && valid(fields[k], data[k])) &&
    Object.entries(fields).every(([k, spec]) => !spec.required || Object.hasOwn(data, k))
  );
}

/** A record as the API answers it. */
export const asRecord = (item: Item): Record<string, unknown> => ({
  id: item.id,
  ...(item.d as Record<string, unknown>),
  _created_at: item._created_at,
  _updated_at: item._updated_at,
  _version: item._version,
});

/** Where a list cursor stands: after `last` (the record as it was answered) in `order`. */
export interface HeldCursor {
  filters: unknown;
  order: string;
  cursor: string;
  last?: Item;
}

/** An If-Match value: any stored record, or one of these tags. */
export type IfMatch = '*' | string[];

/** The id a filter names by equality, which If-Match needs (a tag is one record's). */
function namedId(filters: unknown): string | undefined {
  if (!isJsonObject(filters)) return undefined;
  const id = isJsonObject(filters.id) && Object.keys(filters.id).length === 1 ? filters.id.$eq : filters.id;
  return typeof id === 'string' ? id : undefined;
}

export interface BulkRequest {
  filters: unknown;
  allow_all?: boolean;
  max_affected?: number;
  values?: Record<string, unknown>;
  upsert?: boolean;
}

/** One update operator on one path, as docs/record-api.md's table describes it. */
export interface OperatorChange {
  op: 'set' | 'unset' | 'inc' | 'min' | 'max' | 'push' | 'addToSet' | 'pull' | 'setOnInsert';
  path: string[];
  operand?: unknown;
}

const OPERATOR_NAMES = ['$set', '$unset', '$inc', '$min', '$max', '$push', '$addToSet', '$pull', '$setOnInsert'];

/** What a path holds by the spec: undefined for a top-level field it does not declare (the model refuses the result), null when no record could have it (400). */
function pathSpec(fields: Record<string, FieldSpec>, path: string[]): FieldSpec | undefined | null {
  if (!Object.hasOwn(fields, path[0])) return path.length === 1 ? undefined : null;
  let spec = fields[path[0]];
  for (const segment of path.slice(1)) {
    if (!spec.props || !Object.hasOwn(spec.props, segment)) return null;
    spec = spec.props[segment];
  }
  return spec;
}

/**
 * An update's values as changes, or null when they are a 400 invalid_request: an unknown
 * operator, a dotted path outside one, a system field, a path no record could have, an operand
 * of a kind the path cannot take, $setOnInsert without upsert, overlapping paths.
 */
export function readValues(fields: Record<string, FieldSpec>, values: Record<string, unknown>, upsert: boolean): OperatorChange[] | null {
  const changes: OperatorChange[] = [];
  if (Object.keys(values).length === 0) return null;
  const add = (op: OperatorChange['op'], key: string, operand: unknown): boolean => {
    const path = key.split('.');
    if (path.some((p) => p === '') || Object.hasOwn(SYSTEM_FIELDS, path[0]) || path[0].startsWith('$')) return false;
    const spec = pathSpec(fields, path);
    if (spec === null) return false;
    const takes = (kind: Kind | 'null') => spec === undefined || spec.kinds.includes(kind as Kind);
    if ((op === 'set' || op === 'setOnInsert') && operand === null) op = 'unset';
    if (op === 'inc' && (kindOf(operand) !== 'number' || !takes('number'))) return false;
    if ((op === 'min' || op === 'max') && (!['number', 'string'].includes(kindOf(operand)) || !takes(kindOf(operand)))) return false;
    if (op === 'push' || op === 'addToSet') {
      const each = isJsonObject(operand) && Object.hasOwn(operand, '$each') ? operand.$each : [operand];
      if (isJsonObject(operand) && Object.hasOwn(operand, '$each') && (Object.keys(operand).length !== 1 || !Array.isArray(each))) return false;
      if (!takes('array') || (spec?.items && !(each as unknown[]).every((e) => spec.items!.kinds.includes(kindOf(e) as Kind)))) return false;
      operand = each;
    }
    if (op === 'pull' && !takes('array')) return false;
    changes.push({ op, path, operand });
    return true;
  };
  for (const [key, operand] of Object.entries(values)) {
    if (!key.startsWith('$')) {
      if (key.includes('.') || !add(operand === null ? 'unset' : 'set', key, operand)) return null;
      continue;
    }
    if (!OPERATOR_NAMES.includes(key) || (key === '$setOnInsert' && !upsert)) return null;
    if (!isJsonObject(operand) || Object.keys(operand).length === 0) return null;
    for (const [path, inner] of Object.entries(operand)) if (!add(key.slice(1) as OperatorChange['op'], path, inner)) return null;
  }
  const prefix = (a: string[], b: string[]) => a.length <= b.length && a.every((s, i) => b[i] === s);
  if (changes.some((a, i) => changes.some((b, j) => i !== j && prefix(a.path, b.path)))) return null;
  return changes;
}

/** The data after the changes, as MongoDB applies them (a missing path from 0 or []), or undefined when a stored value's kind cannot be changed so (422). */
export function applyValues(data: Record<string, unknown>, changes: OperatorChange[], inserting = false): Record<string, unknown> | undefined {
  const result = structuredClone(data);
  for (const { op, path, operand } of changes) {
    if (op === 'setOnInsert' && !inserting) continue;
    let parent: Record<string, unknown> | undefined = result;
    for (const segment of path.slice(0, -1)) {
      if (!Object.hasOwn(parent, segment)) {
        // A removal finds nothing to remove; anything else makes the objects on its way.
        if (op === 'unset' || op === 'pull') {
          parent = undefined;
          break;
        }
        parent[segment] = {};
      }
      if (!isJsonObject(parent[segment])) return undefined;
      parent = parent[segment] as Record<string, unknown>;
    }
    if (parent === undefined) continue;
    const last = path[path.length - 1];
    const held = Object.hasOwn(parent, last) ? parent[last] : undefined;
    switch (op) {
      case 'set':
      case 'setOnInsert':
        parent[last] = operand;
        break;
      case 'unset':
        delete parent[last];
        break;
      case 'inc':
        if (held !== undefined && kindOf(held) !== 'number') return undefined;
        parent[last] = held === undefined ? operand : Number(numberText(held as number)) + Number(operand);
        break;
      case 'min':
      case 'max':
        if (held === undefined) parent[last] = operand;
        else if (kindOf(held) !== kindOf(operand)) return undefined;
        else if ((op === 'min' ? -1 : 1) * ordered(operand, held) > 0) parent[last] = operand;
        break;
      case 'push':
      case 'addToSet': {
        if (held !== undefined && !Array.isArray(held)) return undefined;
        const list = [...((held as unknown[]) ?? [])];
        for (const e of operand as unknown[]) if (op === 'push' || !list.some((x) => sameValue(x, e))) list.push(e);
        parent[last] = list;
        break;
      }
      case 'pull':
        if (held === undefined) break;
        if (!Array.isArray(held)) return undefined;
        parent[last] = held.filter((x) => !sameValue(x, operand));
        break;
    }
  }
  return result;
}

export class RecordModel {
  readonly records = new Map<string, Item>();
  readonly cursors: HeldCursor[] = [];
  /** Each record's entity tag, once an answer told it; a write forgets it, as every write makes a tag never answered before. */
  readonly tags = new Map<string, string>();
  /** Every tag answered for each id: none comes round again, after a delete and a create of the id included. */
  readonly seenTags = new Map<string, string[]>();

  constructor(readonly spec: ModelSpec) {}

  /** A copy to try a serial order on. */
  clone(): RecordModel {
    const copy = new RecordModel(this.spec);
    for (const [id, item] of this.records) copy.records.set(id, structuredClone(item));
    for (const [id, tag] of this.tags) copy.tags.set(id, tag);
    for (const [id, tags] of this.seenTags) copy.seenTags.set(id, [...tags]);
    return copy;
  }

  /**
   * What is wrong with a tag answered for record `id` (null: none), or undefined when it is right:
   * the tag the record is known by, or else a new one of its version, which it is known by from then on.
   */
  tagAnswered(id: string, tag: string | null): string | undefined {
    const item = this.records.get(id);
    if (!item || tag === null) return !item === (tag === null) ? undefined : `tag ${tag} for ${id}, ${item ? 'which is stored' : 'which is not stored'}`;
    const known = this.tags.get(id);
    if (known !== undefined) return tag === known ? undefined : `tag ${tag} for ${id}, whose tag is ${known}`;
    const seen = this.seenTags.get(id) ?? [];
    if (!tag.startsWith(`"${item._version}-`) || !tag.endsWith('"') || seen.includes(tag))
      return `tag ${tag} for ${id} at version ${item._version}: not a new one`;
    this.tags.set(id, tag);
    this.seenTags.set(id, [...seen, tag]);
    return undefined;
  }

  /** Records in id order (UTF-8 bytes), as bulk writes and get_one take them. */
  byId(): Item[] {
    return [...this.records.values()].sort((a, b) => utf8Order(a.id as string, b.id as string));
  }

  /** Every record matching `node`, in `order` ("field" or "-field"). */
  sorted(node: FilterNode, order: string): Item[] {
    const field = order.replace(/^-/, '');
    const sign = order.startsWith('-') ? -1 : 1;
    return [...this.records.values()].filter((item) => matches(node, item)).sort((a, b) => sign * compareForOrder(field, a, b));
  }

  /** create: the refusal, or the entries to expect (id undefined: the service makes one). */
  create(
    body: { data: unknown; id?: string; ids?: string[] },
    onlyIfAbsent = false,
  ): Refusal | { entries: Array<{ id?: string; data: Record<string, unknown> }> } {
    if (hasForbiddenKey(body.data)) return refuse('invalid_request');
    const batch = Array.isArray(body.data);
    const data = (batch ? body.data : [body.data]) as unknown[];
    const ids = batch ? body.ids : body.id === undefined ? undefined : [body.id];
    if (ids?.some((id) => id === '')) return refuse('invalid_request');
    if (!data.every((d) => validData(this.spec.fields, d))) return refuse('validation_error');
    const given = ids ?? [];
    const repeated = [...new Set(given.filter((id, i) => given.indexOf(id) !== i))];
    if (repeated.length > 0) return { ...refuse('conflict'), ids: repeated };
    const existing = given.filter((id) => this.records.has(id));
    // If-None-Match: * is the caller's own condition on the ids it names (RFC 9110 13.1.2).
    if (existing.length > 0) return { ...refuse(onlyIfAbsent ? 'precondition_failed' : 'conflict'), ids: existing };
    return { entries: data.map((d, i) => ({ id: ids?.[i], data: d as Record<string, unknown> })) };
  }

  /** The records one create made, as the service answered them. */
  add(records: Array<Record<string, unknown>>): void {
    for (const { id, _created_at, _updated_at, _version, ...data } of records) {
      this.records.set(id as string, { id, d: data, _created_at, _updated_at, _version });
      this.tags.delete(id as string);
    }
  }

  /**
   * The records update or delete would change, or the refusal. Under If-Match the filters name one
   * id (400 otherwise), and the record they match must hold a named tag: 412 with its tag (null
   * when nothing matched) before the model checks the result.
   */
  bulk(body: BulkRequest, values?: Record<string, unknown>, ifMatch?: IfMatch): Refusal | { items: Item[]; changes?: OperatorChange[] } {
    const codes = new Set<string>();
    if (hasForbiddenKey(body.filters) || (values && hasForbiddenKey(values))) codes.add('invalid_request');
    const changes = values && readValues(this.spec.fields, values, body.upsert === true);
    if (changes === null) codes.add('invalid_request');
    const filter = readFilter(this.spec, body.filters);
    if ('codes' in filter) for (const code of filter.codes) codes.add(code);
    if (isJsonObject(body.filters) && Object.keys(body.filters).length === 0 && body.allow_all !== true) codes.add('empty_filter');
    if (ifMatch !== undefined && namedId(body.filters) === undefined) codes.add('invalid_request');
    if (codes.size > 0) return refuse(...codes);
    const items = this.byId().filter((item) => matches((filter as { node: FilterNode }).node, item));
    const guards: string[] = [];
    // A whole model is changed only on purpose: allow_all, however the filter is spelled.
    if (body.allow_all !== true && items.length >= 2 && items.length === this.records.size) guards.push('matches_all');
    if (items.length > (body.max_affected ?? 10_000)) guards.push('too_many_matches');
    if (guards.length > 0) return refuse(...guards);
    if (ifMatch !== undefined) {
      const tag = items.length === 0 ? null : (this.tags.get(items[0].id as string) ?? 'new');
      if (tag === null || (ifMatch !== '*' && !ifMatch.includes(tag))) return { ...refuse('precondition_failed'), etag: tag };
    }
    if (changes && items.some((item) => !validData(this.spec.fields, applyValues(item.d as Record<string, unknown>, changes))))
      return refuse('validation_error');
    return { items, changes: changes ?? undefined };
  }

  /**
   * An upsert: the bulk refusal, an id equality missing (400), the records to update, or the
   * record to create from the filter's top-level equalities and the changes (422 when the model
   * refuses it, 409 conflict when the id exists but the filter excludes its record).
   */
  upsert(
    body: BulkRequest & { values: Record<string, unknown> },
  ): Refusal | { items: Item[]; changes: OperatorChange[] } | { create: { id: string; data: Record<string, unknown> } } {
    const filters = isJsonObject(body.filters) ? body.filters : {};
    // Without the id it is refused before any record is read: with the values' and the filter's own 400s.
    if (typeof filters.id !== 'string') {
      const filter = readFilter(this.spec, body.filters);
      const values = hasForbiddenKey(body.values) || readValues(this.spec.fields, body.values, true) === null ? ['invalid_request'] : [];
      return refuse('invalid_request', ...values, ...('codes' in filter ? filter.codes : []));
    }
    const expected = this.bulk(body, body.values);
    if ('codes' in expected) return expected;
    if (expected.items.length > 0) return expected as { items: Item[]; changes: OperatorChange[] };
    const id = filters.id as string;
    const seed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(filters)) {
      if (key === 'id' || value === null || kindOf(value) === 'array' || (isJsonObject(value) && Object.keys(value).some((k) => k.startsWith('$')))) continue;
      const path = key.split('.');
      let object = seed;
      for (const segment of path.slice(0, -1)) {
        if (!Object.hasOwn(object, segment)) object[segment] = {};
        object = object[segment] as Record<string, unknown>;
      }
      object[path[path.length - 1]] = value;
    }
    // The record is built and checked as a create, whose conditional put then finds the id taken.
    const data = applyValues(seed, expected.changes!, true);
    if (!validData(this.spec.fields, data)) return refuse('validation_error');
    if (this.records.has(id)) return { ...refuse('conflict'), ids: [id] };
    return { create: { id, data: data! } };
  }

  update(items: Item[], changes: OperatorChange[]): void {
    for (const item of items) {
      this.tags.delete(item.id as string);
      this.records.set(item.id as string, { ...item, d: applyValues(item.d as Record<string, unknown>, changes)!, _version: (item._version as number) + 1 });
    }
  }

  delete(items: Item[]): void {
    for (const item of items) {
      this.records.delete(item.id as string);
      this.tags.delete(item.id as string);
    }
  }

  /** A list request's refusal, or its filter's meaning. */
  listed(body: { filters?: unknown; order_by?: string; cursor?: string }): Refusal | { node: FilterNode; order: string } {
    const codes = new Set<string>();
    if (hasForbiddenKey(body.filters)) codes.add('invalid_request');
    if (body.cursor === '') codes.add('invalid_cursor').add('invalid_request');
    const filter = readFilter(this.spec, body.filters);
    if ('codes' in filter) for (const code of filter.codes) codes.add(code);
    const order = body.order_by ?? 'id';
    if (!['id', ...this.spec.indexed].includes(order.replace(/^-/, ''))) codes.add('invalid_order_by');
    if (codes.size > 0) return refuse(...codes);
    return { node: (filter as { node: FilterNode }).node, order };
  }

  /** Records after a held cursor's position: every shard resumes after that one position, so nothing sorting before it shows up. */
  after(held: HeldCursor, node: FilterNode): Item[] {
    const field = held.order.replace(/^-/, '');
    const sign = held.order.startsWith('-') ? -1 : 1;
    return this.sorted(node, held.order).filter((item) => held.last === undefined || sign * compareForOrder(field, item, held.last) > 0);
  }
}

/** One operation of POST /api/db/transaction, as docs/record-api.md's table has them. */
export type TransactionOp =
  | { op: 'create'; model: string; id: string; data: unknown }
  | { op: 'update'; model: string; id: string; values: Record<string, unknown>; filters?: unknown }
  | { op: 'delete' | 'check'; model: string; id: string; filters?: unknown };

/** An operation's result, a record without its stamps (the service's). */
export type TransactionResult =
  | { op: 'create' | 'update'; record: Record<string, unknown> }
  | { op: 'delete'; id: string; deleted: true }
  | { op: 'check'; id: string; check: true };

const refusedAt = (operation: number, reason: string): Refusal => ({ ...refuse('conflict'), operation, reason });

/**
 * A transaction on `models` (by name), all or nothing: its results, or every answer it may get.
 * A request DynamoDB could never take, or an operation a model could never read, is 400 before
 * anything is read. The model's refusals are 422; which operation is then named depends on
 * whether an update could be one atomic action (shared/store/operators/compile.ts) or read its
 * record first, so each refused or missing update may be the one. Otherwise DynamoDB names the
 * first operation (in order) whose record is not as it needs: 409 `exists`, `missing`, or
 * `condition_failed` for filters that do not match.
 */
export function transaction(models: Record<string, RecordModel>, operations: TransactionOp[]): { refusals: Refusal[] } | { results: TransactionResult[] } {
  if (hasForbiddenKey(operations)) return { refusals: [refuse('invalid_request')] };
  const named = new Set<string>();
  for (const [i, o] of operations.entries()) {
    const key = `${o.model}/${o.id}`;
    if (named.has(key)) return { refusals: [{ ...refuse('invalid_request'), operation: i }] };
    named.add(key);
  }
  const codes = new Set<string>();
  const changes = operations.map((o) => {
    const spec = models[o.model].spec;
    if (o.op !== 'create') {
      const filter = readFilter(spec, o.filters);
      if ('codes' in filter) for (const code of filter.codes) codes.add(code);
    }
    if (o.op !== 'update') return [];
    const read = readValues(spec.fields, o.values, false);
    if (read === null) codes.add('invalid_request');
    return read ?? [];
  });
  if (codes.size > 0) return { refusals: [refuse(...codes)] };
  const results: TransactionResult[] = [];
  const invalid: number[] = [];
  const failures = operations.map((o, i): Refusal | undefined => {
    const m = models[o.model];
    const item = m.records.get(o.id);
    if (o.op === 'create') {
      if (!validData(m.spec.fields, o.data)) invalid.push(i);
      results.push({ op: 'create', record: { id: o.id, ...(o.data as object), _version: 1 } });
      return item ? refusedAt(i, 'exists') : undefined;
    }
    if (!item) {
      if (o.op === 'update') invalid.push(i);
      return refusedAt(i, 'missing');
    }
    if (o.op === 'update') {
      const data = applyValues(item.d as Record<string, unknown>, changes[i]);
      if (!validData(m.spec.fields, data)) {
        invalid.push(i);
        return { ...refuse('validation_error'), operations: [i] };
      }
      results.push({ op: 'update', record: { id: o.id, ...data, _created_at: item._created_at, _version: (item._version as number) + 1 } });
    } else results.push(o.op === 'delete' ? { op: 'delete', id: o.id, deleted: true } : { op: 'check', id: o.id, check: true });
    const filter = readFilter(m.spec, o.filters) as { node: FilterNode };
    return matches(filter.node, item) ? undefined : refusedAt(i, 'condition_failed');
  });
  const first = failures.find((f) => f !== undefined);
  if (!first && invalid.length === 0) return { results };
  // Data a model refuses is refused before anything is sent, as is an update read first: missing, or 422 naming every refused operation.
  const refusals = first && !invalid.some((i) => operations[i].op === 'create') ? [first] : [];
  for (const i of invalid) if (failures[i]?.reason === 'missing') refusals.push(failures[i]!);
  if (invalid.length > 0) refusals.push({ ...refuse('validation_error'), operations: invalid });
  return { refusals };
}

/** The models after a transaction's results: each record as the operation left it, its stamps from the answer. */
export function commitTransaction(
  models: Record<string, RecordModel>,
  operations: TransactionOp[],
  answered: Array<{ record?: Record<string, unknown> }>,
): void {
  for (const [i, o] of operations.entries()) {
    const m = models[o.model];
    if (o.op === 'delete') m.delete([m.records.get(o.id)!]);
    if (o.op !== 'create' && o.op !== 'update') continue;
    const { record } = answered[i];
    m.add([record!]);
  }
}
