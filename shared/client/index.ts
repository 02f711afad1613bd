export { createClient, RecordgateError, type ApiErrorCode, type Client, type ClientOptions, type ModelClient } from './client';
export type * from './types';
