import type { Model } from '../models/model';

/** The aggregates a caller may read, by name: none naming a field hidden from it, which to it does not exist. */
export const visibleAggregates = (model: Model, hidden: ReadonlySet<string>): string[] =>
  Object.entries(model.aggregates)
    .filter(([, definition]) => ![...definition.group_by, ...(definition.sum ?? [])].some((field) => hidden.has(field)))
    .map(([name]) => name);
