import { withinCharacters } from '../../characters';
import { LIMITS } from '../../limits';
import { sortableFields, type Model } from '../../models/model';
import { isMatchAll, type FilterNode } from '../filter/ast';
import { compileFilter } from '../filter/compile';
import type { ExpressionBuilder } from '../filter/expression';
import { InvalidOrder } from '../errors';
import {
  afterPrefix,
  afterSpace,
  indexPartitionKey,
  idOfIndexSortKey,
  indexSlotOf,
  keyIsExact,
  keyPrefix,
  keySpace,
  kindRange,
  partitionKey,
  shardOf,
  sortableValue,
  VALUE_AFTER,
  VALUE_END,
  valueRoom,
} from '../keys';
import { TABLE_KEY } from '../table';

export interface Order {
  field: string;
  descending: boolean;
}

/** The order of reads that answer no order_by: get_one, count and the bulk writes' matching. */
export const ID_ORDER: Order = { field: 'id', descending: false };

/** How one request reads a model: which index, which shards, the key condition of each and where each resumes. */
export interface AccessPlan {
  indexName?: string;
  /** The attribute whose byte order is the answer's order. */
  sortAttribute: string;
  forward: boolean;
  shards: number[];
  /** True when the key condition alone selects exactly the matching records. */
  exact: boolean;
  /** What every sort key the plan reads starts with: the caller's tenant's key space (shared/store/keys.ts keySpace), or ''. */
  space: string;
  keyCondition(shard: number, x: ExpressionBuilder): string;
  /**
   * The ExclusiveStartKey that resumes one shard after `after`, a value of sortAttribute: the key
   * a record with that sort key would have in this shard, whether or not one exists there.
   */
  startKey(shard: number, after: string): Record<string, string>;
}

/** What reads may use of a model's indexes (shared/store/layout/layout.ts): only the ready ones. */
export interface IndexReadiness {
  /** Indexed fields whose entries are not yet written for every record. */
  building: ReadonlySet<string>;
  /** Refuses an order that only a building index could give. */
  checkOrder(field: string): void;
}

export const ALL_READY: IndexReadiness = { building: new Set(), checkOrder: () => undefined };

type Compare = Extract<FilterNode, { kind: 'compare' }>;

const RANGE_OPS = new Set(['eq', 'gt', 'gte', 'lt', 'lte', 'between', 'begins_with']);

function topLevel(filter: FilterNode): Compare[] {
  const items = filter.kind === 'and' ? filter.items : [filter];
  return items.filter((n): n is Compare => n.kind === 'compare');
}

export function parseOrder(model: Model, orderBy: string | ReadonlyArray<string> | undefined, readiness = ALL_READY): Order {
  const keys = orderBy === undefined ? [] : Array.isArray(orderBy) ? orderBy : [orderBy];
  const sortable = sortableFields(model);
  const refuse = (message: string) => new InvalidOrder(sortable, message);
  if (keys.length > 1) throw refuse('order_by takes one field; ties are broken by id');
  const key = keys[0] ?? 'id';
  const descending = key.startsWith('-');
  const field = descending ? key.slice(1) : key;
  if (!sortable.includes(field)) throw refuse(`cannot order ${model.name} by ${JSON.stringify(field)}; sortable: ${sortable.join(', ')}`);
  readiness.checkOrder(field);
  return { field, descending };
}

/**
 * Key condition on an encoded index sort key for one comparison on the indexed field. Every
 * range stays within the operand's kind (strings sort before numbers in the index, and
 * `{"$gt": "a"}` must not take in numbers). A string too long for the key to decide only
 * narrows the read to what its prefix allows; the filter then decides exactly.
 */
function indexRange(c: Compare, sk: string, x: ExpressionBuilder, space: string): string {
  const [a, b] = c.operands;
  const [first, last] = kindRange(a);
  const key = (k: string) => x.value(`${space}${k}`);
  const between = (low: string, high: string) => `${sk} BETWEEN ${key(low)} AND ${key(high)}`;
  // A tenant's keys keep fewer bytes of a value: its name takes the rest of the key's size.
  const room = valueRoom(space);
  const exact = (v: unknown) => keyIsExact(v, room);
  const value = (v: unknown) => sortableValue(v, room);
  const prefix = (v: unknown) => keyPrefix(v as string, room);
  // Lowest key of a value >= v (> v when `strict`), and a bound above every key of a value <= v (< v).
  const from = (v: unknown, strict = false) => (exact(v) ? value(v) + (strict ? VALUE_AFTER : VALUE_END) : prefix(v));
  const upTo = (v: unknown, strict = false) => (exact(v) ? value(v) + (strict ? VALUE_END : VALUE_AFTER) : afterPrefix(prefix(v)));
  switch (c.op) {
    case 'eq':
      return `begins_with(${sk}, ${key(exact(a) ? value(a) + VALUE_END : prefix(a))})`;
    case 'gt':
      return between(from(a, true), last);
    case 'gte':
      return between(from(a), last);
    case 'lt':
      return between(first, upTo(a, true));
    case 'lte':
      return between(first, upTo(a));
    case 'between':
      return between(from(a), upTo(b));
    default: // begins_with on a string field: the encoded prefix is a prefix of every match
      return `begins_with(${sk}, ${key(exact(a) ? value(a) : prefix(a))})`;
  }
}

function idRange(c: Compare, sk: string, x: ExpressionBuilder, space: string): string {
  const [a, b] = c.operands;
  if (space !== '') return tenantIdRange(c, sk, x, space);
  switch (c.op) {
    case 'eq':
      return `${sk} = ${x.value(a)}`;
    case 'gt':
      return `${sk} > ${x.value(a)}`;
    case 'gte':
      return `${sk} >= ${x.value(a)}`;
    case 'lt':
      return `${sk} < ${x.value(a)}`;
    case 'lte':
      return `${sk} <= ${x.value(a)}`;
    case 'between':
      return `${sk} BETWEEN ${x.value(a)} AND ${x.value(b)}`;
    default:
      return `begins_with(${sk}, ${x.value(a)})`;
  }
}

/**
 * An id comparison within one tenant's key space. A sort key takes one condition, so an open
 * range is closed at the space's end (or start) and `>`, `<` keep their bound: the plan is then
 * not exact (keyIsTight), and the filter drops the bound itself.
 */
function tenantIdRange(c: Compare, sk: string, x: ExpressionBuilder, space: string): string {
  const [a, b] = c.operands;
  const key = (id: unknown) => x.value(`${space}${id as string}`);
  switch (c.op) {
    case 'eq':
      return `${sk} = ${key(a)}`;
    case 'gt':
    case 'gte':
      return `${sk} BETWEEN ${key(a)} AND ${x.value(afterSpace(space))}`;
    case 'lt':
    case 'lte':
      return `${sk} BETWEEN ${x.value(space)} AND ${key(a)}`;
    case 'between':
      return `${sk} BETWEEN ${key(a)} AND ${key(b)}`;
    default:
      return `begins_with(${sk}, ${key(a)})`;
  }
}

/** Whether an id range's key condition is exactly the comparison: within a tenant's space, `>` and `<` take in their bound. */
const keyIsTight = (c: Compare, space: string) => space === '' || (c.op !== 'gt' && c.op !== 'lt');

const allShards = (model: Model) => Array.from({ length: model.shards }, (_, i) => i);

/** An id comparison that no record can satisfy: the plan reads nothing. */
const NOTHING = 'nothing';

/**
 * The key condition an id comparison can be sent as, NOTHING, or undefined when the filter alone
 * must decide it. DynamoDB refuses an empty string as a key value (a 500 before) and one over
 * 1,024 bytes; ids are 1 to LIMITS.maxIdLength characters (code points, as create counts them), so those operands are decided here by
 * that fact: `= ""`, `< ""`, `<= ""`, and `=` or `begins_with` of a longer string match nothing;
 * `> ""`, `>= ""` and `begins_with ""` are no narrowing (the filter, which takes "", keeps the
 * answer exact); `between ["", b]` is `<= b`. A range bound longer than an id is left to the filter.
 */
function idKey(c: Compare): Compare | typeof NOTHING | undefined {
  const fits = (v: unknown) => typeof v === 'string' && withinCharacters(v, LIMITS.maxIdLength);
  const [a, b] = c.operands;
  if (a === '') {
    if (c.op === 'eq' || c.op === 'lt' || c.op === 'lte' || (c.op === 'between' && b === '')) return NOTHING;
    if (c.op === 'between') return fits(b) ? { ...c, op: 'lte', operands: [b] } : undefined;
    return undefined;
  }
  if (!fits(a)) return c.op === 'eq' || c.op === 'begins_with' ? NOTHING : undefined;
  return c.op === 'between' && !fits(b) ? undefined : c;
}

/**
 * Chooses the cheapest way to read: a point query for `id` equality, an index for an indexed
 * field (equality keeps id order), else the model's own partitions with any id range. The
 * whole filter still runs as a FilterExpression, so the plan only ever narrows what is read.
 * An order by a building index never reaches here: parseOrder refused it.
 */
export function planAccess(model: Model, filter: FilterNode, order: Order, readiness = ALL_READY): AccessPlan {
  const conditions = topLevel(filter);
  const space = keySpace(model);
  // The key condition alone is the whole filter: no FilterExpression needed, reads are exact.
  const onlyThis = (c: Compare | undefined) => c !== undefined && filter === c && c.operands.every((v) => keyIsExact(v, valueRoom(space)));
  // Within a tenant's key space even a read of every record keeps to the space's keys.
  const wholeSpace = (sk: string, x: ExpressionBuilder) => (space === '' ? '' : ` AND begins_with(${x.name(sk)}, ${x.value(space)})`);
  const base = (shards: number[], range: Compare | undefined): AccessPlan => ({
    sortAttribute: TABLE_KEY.sortKey,
    forward: !order.descending,
    shards,
    exact: isMatchAll(filter) || (onlyThis(range) && keyIsTight(range!, space)),
    space,
    keyCondition: (shard, x) => {
      const pk = `${x.name(TABLE_KEY.partitionKey)} = ${x.value(partitionKey(model, shard))}`;
      return range ? `${pk} AND ${idRange(range, x.name(TABLE_KEY.sortKey), x, space)}` : `${pk}${wholeSpace(TABLE_KEY.sortKey, x)}`;
    },
    startKey: (shard, after) => ({ [TABLE_KEY.partitionKey]: partitionKey(model, shard), [TABLE_KEY.sortKey]: after }),
  });
  const index = (field: string, range: Compare | undefined): AccessPlan => {
    const slot = indexSlotOf(model, field)!;
    return {
      indexName: slot.indexName,
      sortAttribute: slot.sortKey,
      forward: !order.descending,
      shards: allShards(model),
      exact: isMatchAll(filter) || onlyThis(range),
      space,
      keyCondition: (shard, x) => {
        const pk = `${x.name(slot.partitionKey)} = ${x.value(indexPartitionKey(model, field, shard))}`;
        return range ? `${pk} AND ${indexRange(range, x.name(slot.sortKey), x, space)}` : `${pk}${wholeSpace(slot.sortKey, x)}`;
      },
      startKey: (shard, after) => ({
        [TABLE_KEY.partitionKey]: partitionKey(model, shard),
        [TABLE_KEY.sortKey]: `${space}${idOfIndexSortKey(after, space)}`,
        [slot.partitionKey]: indexPartitionKey(model, field, shard),
        [slot.sortKey]: after,
      }),
    };
  };
  const rangeOn = (field: string, ops = RANGE_OPS) => conditions.find((c) => c.field === field && c.path.length <= 2 && ops.has(c.op));
  const idKeys = conditions.filter((c) => c.field === 'id' && RANGE_OPS.has(c.op)).map(idKey);
  if (idKeys.includes(NOTHING)) return base([], undefined);
  const idRanges = idKeys.filter((c): c is Compare => c !== undefined && c !== NOTHING);

  if (order.field !== 'id') return index(order.field, rangeOn(order.field));
  const idEq = idRanges.find((c) => c.op === 'eq');
  if (idEq) return base([shardOf(model, idEq.operands[0] as string)], idEq);
  // An index still being built lacks older records: a filter on its field reads the model's own partitions.
  const indexedEq = model.indexed
    .filter((f) => !readiness.building.has(f))
    .map((f) => rangeOn(f, new Set(['eq'])))
    .find((c) => c !== undefined);
  if (indexedEq) return index(indexedEq.field, indexedEq);
  return base(allShards(model), idRanges[0]);
}

/** The FilterExpression of a plan: the whole filter, unless the key condition is already exact. */
export function filterExpression(plan: AccessPlan, filter: FilterNode, x: ExpressionBuilder): string | undefined {
  return plan.exact ? undefined : compileFilter(filter, x);
}
