/**
 * The record store's actions, one folder each under ./actions: a pure params builder (input to
 * DynamoDB command input, unit-tested without a database) beside the few lines that send it.
 * The record operations import their action directly, as does a module that must not carry the
 * lazy chunks of actions it never runs (shared/health/bots.ts); everything else imports them from here.
 */
export { countRecords } from './actions/count/count';
export { createRecords } from './actions/create/create';
export { storedItem, type NewRecord } from './actions/create/item';
export { deleteRecords } from './actions/delete/delete';
export { getOneRecord } from './actions/get-one/get-one';
export { listRecords } from './actions/list/list';
export { updateRecords } from './actions/update/update';
export { updateRecordById } from './actions/update-by-id/update-by-id';
export type { ApiRecord } from './types';
