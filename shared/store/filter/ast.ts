/** A parsed, validated filter. Paths are attribute paths in the stored item. */
export type CompareOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'between' | 'null' | 'begins_with' | 'contains';

export type FilterNode =
  | { kind: 'and'; items: FilterNode[] }
  | { kind: 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'compare'; field: string; path: string[]; op: CompareOp; operands: unknown[] };

export const MATCH_ALL: FilterNode = { kind: 'and', items: [] };

export const isMatchAll = (node: FilterNode): boolean => node.kind === 'and' && node.items.length === 0;
