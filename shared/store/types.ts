import type * as z from 'zod';
import type * as mini from '../zod';
import type { countRequest, deleteRequest, getOneRequest, listRequest, updateRequest } from '../api/requests';
import type { countAnswerSchema, deleteAnswerSchema, listAnswerSchema, updateAnswerSchema } from '../api/responses';
import type { ApiRecord } from './record';

/**
 * The store's requests and answers, read off the API's zod schemas so that they cannot drift
 * from the contract. One difference: the store takes any value as `filters`, because it parses
 * filters itself (shared/store/filter/parse.ts) and the service's own callers build them in code.
 */
type AnyFilters<T> = { [K in keyof T]: K extends 'filters' ? unknown : T[K] };

export type ListRequest = AnyFilters<mini.infer<typeof listRequest>>;
export type GetOneRequest = AnyFilters<mini.infer<typeof getOneRequest>>;
export type CountRequest = AnyFilters<mini.infer<typeof countRequest>>;
export type BulkGuard = AnyFilters<mini.infer<typeof deleteRequest>>;
export type UpdateRequest = AnyFilters<mini.infer<typeof updateRequest>>;

/** Items are ApiRecords: the schema's record type is per model, and the store serves any model. */
export type ListAnswer = Omit<z.infer<ReturnType<typeof listAnswerSchema>>, 'items'> & { items: ApiRecord[] };
export type CountAnswer = z.infer<typeof countAnswerSchema>;
export type UpdateAnswer = z.infer<typeof updateAnswerSchema>;
export type DeleteAnswer = z.infer<typeof deleteAnswerSchema>;
