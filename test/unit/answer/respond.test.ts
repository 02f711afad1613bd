import {
  BatchOutOfTime,
  EmptyFilter,
  InvalidCursor,
  InvalidFilter,
  InvalidOrder,
  InvalidRecord,
  InvalidValues,
  ItemTooLarge,
  MatchesAll,
  PartialWrite,
  RecordBusy,
  RecordExists,
  RecordNotFound,
  RepeatedIds,
  TableUnreachable,
  TooManyMatches,
  UnknownField,
} from '../../../shared/store/errors';
import { ApiError } from '../../../shared/errors';
import { errorResult } from '../../../shared/answer/respond';
import { spyOnLog } from '../../support/log';

const body = (result: { body?: string }) => JSON.parse(result.body ?? '{}');
const quiet = () => jest.spyOn(console, 'error').mockImplementation(() => undefined);

test('an ApiError is answered as it is, in the envelope', () => {
  const result = errorResult(new ApiError('not_found', 'No reaction record matches the filters', { model: 'reaction' }));
  expect(result.statusCode).toBe(404);
  expect(body(result)).toEqual({ status: 'error', message: 'No reaction record matches the filters', data: { error: 'not_found', model: 'reaction' } });
});

test('an unexpected error is 500 internal and its message and stack stay in the log', () => {
  const log = spyOnLog('error');
  const result = errorResult(new TypeError("Cannot read properties of undefined (reading 'secret-detail')"));
  expect(result.statusCode).toBe(500);
  expect(body(result)).toEqual({ status: 'error', message: 'Internal error; it has been logged', data: { error: 'internal' } });
  expect(result.body).not.toContain('secret-detail');
  expect(log.mock.calls[0][0]).toContain('secret-detail');
  log.mockRestore();
});

test.each([['ProvisionedThroughputExceededException'], ['ThrottlingException'], ['InternalServerError']])(
  "the SDK's %s is 503 database_unavailable with Retry-After, no SDK text",
  (name) => {
    const log = quiet();
    const result = errorResult(Object.assign(new Error(`${name}: detail from AWS`), { name, $metadata: {} }));
    expect(result.statusCode).toBe(503);
    expect(result.headers['retry-after']).toBe('1');
    expect(body(result).data).toEqual({ error: 'database_unavailable' });
    expect(result.body).not.toContain('AWS');
    log.mockRestore();
  },
);

test.each([
  ['ResourceNotFoundException', 'Requested resource not found', 'table_missing', /the table \S+ does not exist/],
  [
    'AccessDeniedException',
    'User: arn:aws:sts::123456789012:assumed-role/x/y is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:eu-west-1:123456789012:table/t',
    'access_denied',
    /the function's role may not dynamodb:PutItem/,
  ],
  ['UnrecognizedClientException', 'The security token included in the request is invalid.', 'bad_credentials', /credentials are not accepted/],
])("the SDK's %s is 500 misconfigured, without Retry-After or SDK text, and logged with its cause", (name, message, problem, says) => {
  const log = spyOnLog('error');
  const result = errorResult(Object.assign(new Error(message), { name, $metadata: {} }));
  expect(result.statusCode).toBe(500);
  expect(result.headers['retry-after']).toBeUndefined();
  expect(body(result).data).toEqual({ error: 'misconfigured', problem });
  expect(body(result).message).toMatch(says);
  expect(result.body).not.toMatch(/arn:|123456789012|security token/);
  expect(JSON.parse(log.mock.calls[0][0] as string)).toMatchObject({ level: 'error', code: 'misconfigured', name, message });
  log.mockRestore();
});

test("a call cut off at the cutoff or past the SDK's timeouts is 503 'did not answer in time'; middy's own timeout is not", () => {
  const log = quiet();
  for (const error of [
    Object.assign(new Error('Request aborted'), { name: 'AbortError' }),
    Object.assign(new Error('a request has exceeded the configured 3000 ms requestTimeout'), { name: 'TimeoutError', code: 'ETIMEDOUT' }),
    Object.assign(new Error('the request socket did not establish a connection'), { name: 'TimeoutError' }),
  ]) {
    const result = errorResult(error);
    expect([result.statusCode, result.headers['retry-after'], body(result).message]).toEqual([503, '1', 'The database did not answer in time; retry later']);
  }
  const middy = Object.assign(new Error('[AbortError]: The operation was aborted.', { cause: { package: '@middy/core' } }), { name: 'TimeoutError' });
  expect(errorResult(middy).statusCode).toBe(500);
  log.mockRestore();
});

test('a socket error, even wrapped by the SDK, is 503', () => {
  const log = quiet();
  expect(errorResult(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })).statusCode).toBe(503);
  expect(errorResult(new Error('AWS SDK error wrapper for Error: read ECONNRESET')).statusCode).toBe(503);
  log.mockRestore();
});

test('DynamoDB refusing an oversized item is 413, and bulk counts reach the envelope', () => {
  const error = Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException' });
  const result = errorResult(new PartialWrite(error, { updated: 3, matched: 5, failed: 2 }));
  expect(result.statusCode).toBe(413);
  expect(body(result).data).toEqual({ error: 'payload_too_large', updated: 3, matched: 5, failed: 2 });
});

test('a bulk write that changed nothing because a record stayed busy answers 409 record_busy, its counts and the one Retry-After', () => {
  const result = errorResult(new PartialWrite(new RecordBusy('r1'), { deleted: 0, matched: 2, failed: 1 }));
  expect(result.statusCode).toBe(409);
  expect(result.headers['retry-after']).toBe('1');
  expect(body(result)).toEqual({
    status: 'error',
    message: 'Record r1 kept changing under this update; retry later',
    data: { error: 'record_busy', id: 'r1', deleted: 0, matched: 2, failed: 1 },
  });
});

const detail = { path: 'x', message: 'bad' };

test.each([
  [new InvalidRecord([detail]), 422, { error: 'validation_error', details: [detail] }],
  [new InvalidValues('values is empty', [detail]), 400, { error: 'invalid_request', details: [detail] }],
  [
    new InvalidFilter('filters.a', 'bad', ['$eq']),
    400,
    { error: 'invalid_filter', path: 'filters.a', details: [{ path: 'filters.a', message: 'bad' }], operators: ['$eq'] },
  ],
  [
    new UnknownField('note', 'f', { path: 'fields', message: 'unknown field f' }, ['id']),
    400,
    { error: 'unknown_field', field: 'f', model: 'note', available: ['id'], details: [{ path: 'fields', message: 'unknown field f' }] },
  ],
  [new InvalidOrder(['id'], 'cannot order'), 400, { error: 'invalid_order_by', sortable: ['id'], details: [{ path: 'order_by', message: 'cannot order' }] }],
  [
    new InvalidCursor('The cursor does not fit this query', 'not a position'),
    400,
    { error: 'invalid_cursor', details: [{ path: 'cursor', message: 'not a position' }] },
  ],
  [new EmptyFilter(), 400, { error: 'empty_filter', details: [{ path: 'filters', message: 'empty filter without allow_all' }] }],
  [new RecordNotFound('note'), 404, { error: 'not_found', model: 'note' }],
  [new RecordExists('note', ['a']), 409, { error: 'conflict', ids: ['a'] }],
  [new RepeatedIds(['a']), 409, { error: 'conflict', ids: ['a'] }],
  [new TooManyMatches(2), 409, { error: 'too_many_matches', max_affected: 2, matched_at_least: 3 }],
  [
    new MatchesAll('note', 4),
    409,
    { error: 'matches_all', model: 'note', matched: 4, details: [{ path: 'filters', message: 'matches every record; allow_all: true is needed' }] },
  ],
  [new ItemTooLarge('a', 500_000, 409_600), 413, { error: 'payload_too_large', id: 'a', item_bytes: 500_000, max_item_bytes: 409_600 }],
  [new RecordBusy('a'), 409, { error: 'record_busy', id: 'a' }],
  [new BatchOutOfTime(), 503, { error: 'database_unavailable' }],
  [new TableUnreachable(new Error('connect ECONNREFUSED')), 503, { error: 'database_unavailable', database: 'unavailable' }],
])('the registry answers %p with %i', (error, status, data) => {
  const result = errorResult(error);
  expect(result.statusCode).toBe(status);
  expect(body(result)).toEqual({ status: 'error', message: error.message, data });
  expect(result.headers['retry-after']).toBe(status === 503 || data.error === 'record_busy' ? '1' : undefined);
});
