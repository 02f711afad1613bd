/** A parsed, validated filter. Paths are attribute paths in the stored item. */
export type CompareOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'nin' | 'between' | 'null' | 'begins_with' | 'contains';

export type FilterNode =
  | { kind: 'and'; items: FilterNode[] }
  | { kind: 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'compare'; field: string; path: string[]; op: CompareOp; operands: unknown[] };

export const MATCH_ALL: FilterNode = { kind: 'and', items: [] };

export const isMatchAll = (node: FilterNode): boolean => node.kind === 'and' && node.items.length === 0;

/** The id a filter names by equality at its top level (`{"id": "x"}`, alone or beside other conditions), which makes it one record's. */
export function namedId(node: FilterNode): string | undefined {
  const items = node.kind === 'and' ? node.items : [node];
  const eq = items.find((n) => n.kind === 'compare' && n.field === 'id' && n.path.length === 1 && n.op === 'eq');
  return eq?.kind === 'compare' && typeof eq.operands[0] === 'string' ? eq.operands[0] : undefined;
}
