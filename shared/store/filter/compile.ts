import type { FilterNode } from './ast';
import type { ExpressionBuilder } from './expression';

/**
 * Whether a filter matches everything, decided before anything is compiled: a part compiled and
 * then dropped would leave its names and values in the expression, which DynamoDB refuses.
 */
const matchesAll = (node: FilterNode): boolean => (node.kind === 'and' && node.items.every(matchesAll)) || (node.kind === 'or' && node.items.some(matchesAll));

/**
 * DynamoDB condition text for a filter, or undefined when it matches everything.
 * Missing and null count as "no value": $ne and $nin keep records without the field, so a
 * negation never silently drops them (DynamoDB's own `<>` is false on a missing attribute).
 */
export function compileFilter(node: FilterNode, x: ExpressionBuilder): string | undefined {
  if (matchesAll(node)) return undefined;
  switch (node.kind) {
    case 'and':
    case 'or': {
      const parts = node.items.filter((item) => !matchesAll(item)).map((item) => compileFilter(item, x));
      const present = parts.filter((p): p is string => p !== undefined);
      if (present.length === 0) return undefined;
      return present.length === 1 ? present[0] : `(${present.join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    case 'not': {
      const inner = compileFilter(node.item, x);
      // Every record has an id, so this matches nothing. Not the partition key: DynamoDB refuses
      // key attributes in a Query's filter expression (a 500 for {"$not": {}} before).
      return inner === undefined ? `attribute_not_exists(${x.name('id')})` : `(NOT ${inner})`;
    }
    case 'compare': {
      const p = x.path(node.path);
      const absent = () => `attribute_not_exists(${p}) OR attribute_type(${p}, ${x.value('NULL')})`;
      const v = node.operands.map((o) => x.value(o));
      switch (node.op) {
        case 'null':
          return `(${absent()})`;
        case 'eq':
          return `${p} = ${v[0]}`;
        case 'ne':
          return `(${absent()} OR ${p} <> ${v[0]})`;
        case 'gt':
          return `${p} > ${v[0]}`;
        case 'gte':
          return `${p} >= ${v[0]}`;
        case 'lt':
          return `${p} < ${v[0]}`;
        case 'lte':
          return `${p} <= ${v[0]}`;
        case 'in':
          return `${p} IN (${v.join(', ')})`;
        case 'nin':
          return `(${absent()} OR NOT (${p} IN (${v.join(', ')})))`;
        case 'between':
          return `${p} BETWEEN ${v[0]} AND ${v[1]}`;
        case 'begins_with':
          return `begins_with(${p}, ${v[0]})`;
        case 'contains':
          return `contains(${p}, ${v[0]})`;
      }
    }
  }
}
