export { createClient, operation, RecordgateError, type ApiErrorCode, type Client, type ClientOptions, type ModelClient } from './client';
export { JsonNumber, type ClientNumber } from './json-number';
export type * from './types';
