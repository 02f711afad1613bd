import { ERROR_STATUS } from '../../shared/errors';
import { compareDecimal } from '../../shared/json/decimal';
import { isExactNumber, isJsonObject, numberText } from '../../shared/json/exact-json';
import type { CompareOp, FilterNode } from '../../shared/store/filter/ast';
import { compareForOrder, matches, type Item } from './filter-reference';
import { utf8Order } from '../../shared/store/utf8-order';

/**
 * The record API as docs/record-api.md describes it, in memory: records with their versions and
 * system fields, create (ids given or made, conflicts, all or nothing), update (null removes a
 * field), delete, the bulk guards (empty_filter, matches_all, too_many_matches), list positions
 * held across writes, count and get_one. Filter meaning and order are the filter reference's
 * (test/support/filter-reference.ts); which filters are refused, and how, is read here from a
 * hand-written description of the model's fields, not from its zod schema or the service's parser.
 * test/integration/record-model.test.ts holds the service to it, step by step.
 */
export type Kind = 'string' | 'number' | 'boolean' | 'array' | 'object';

export interface FieldSpec {
  kinds: Kind[];
  required?: boolean;
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

export interface BulkRequest {
  filters: unknown;
  allow_all?: boolean;
  max_affected?: number;
  values?: Record<string, unknown>;
}

export class RecordModel {
  readonly records = new Map<string, Item>();
  readonly cursors: HeldCursor[] = [];

  constructor(readonly spec: ModelSpec) {}

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
  create(body: { data: unknown; id?: string; ids?: string[] }): Refusal | { entries: Array<{ id?: string; data: Record<string, unknown> }> } {
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
    if (existing.length > 0) return { ...refuse('conflict'), ids: existing };
    return { entries: data.map((d, i) => ({ id: ids?.[i], data: d as Record<string, unknown> })) };
  }

  /** The records one create made, as the service answered them. */
  add(records: Array<Record<string, unknown>>): void {
    for (const { id, _created_at, _updated_at, _version, ...data } of records) {
      this.records.set(id as string, { id, d: data, _created_at, _updated_at, _version });
    }
  }

  /** The records update or delete would change, or the refusal. */
  bulk(body: BulkRequest, values?: Record<string, unknown>): Refusal | { items: Item[] } {
    const codes = new Set<string>();
    if (hasForbiddenKey(body.filters) || (values && hasForbiddenKey(values))) codes.add('invalid_request');
    if (values && (Object.keys(values).length === 0 || Object.keys(values).some((k) => Object.hasOwn(SYSTEM_FIELDS, k)))) codes.add('invalid_request');
    const filter = readFilter(this.spec, body.filters);
    if ('codes' in filter) for (const code of filter.codes) codes.add(code);
    if (isJsonObject(body.filters) && Object.keys(body.filters).length === 0 && body.allow_all !== true) codes.add('empty_filter');
    if (codes.size > 0) return refuse(...codes);
    const items = this.byId().filter((item) => matches((filter as { node: FilterNode }).node, item));
    const guards: string[] = [];
    // A whole model is changed only on purpose: allow_all, however the filter is spelled.
    if (body.allow_all !== true && items.length >= 2 && items.length === this.records.size) guards.push('matches_all');
    if (items.length > (body.max_affected ?? 10_000)) guards.push('too_many_matches');
    if (guards.length > 0) return refuse(...guards);
    if (values && items.some((item) => !validData(this.spec.fields, merged(item, values)))) return refuse('validation_error');
    return { items };
  }

  update(items: Item[], values: Record<string, unknown>): void {
    for (const item of items) {
      this.records.set(item.id as string, { ...item, d: merged(item, values), _version: (item._version as number) + 1 });
    }
  }

  delete(items: Item[]): void {
    for (const item of items) this.records.delete(item.id as string);
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

const merged = (item: Item, values: Record<string, unknown>): Record<string, unknown> => {
  const data = { ...(item.d as Record<string, unknown>) };
  for (const [field, value] of Object.entries(values)) {
    if (value === null) delete data[field];
    else data[field] = value;
  }
  return data;
};
