import { ApiError } from '../../../shared/http/errors';
import { errorResult } from '../../../shared/http/respond';
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
  const result = errorResult(new TypeError('Cannot read properties of undefined (reading \'secret-detail\')'));
  expect(result.statusCode).toBe(500);
  expect(body(result)).toEqual({ status: 'error', message: 'Internal error; it has been logged', data: { error: 'internal' } });
  expect(result.body).not.toContain('secret-detail');
  expect(log.mock.calls[0][0]).toContain('secret-detail');
  log.mockRestore();
});

test.each([
  ['ProvisionedThroughputExceededException'],
  ['ThrottlingException'],
  ['InternalServerError'],
  ['ResourceNotFoundException'],
])('the SDK\'s %s is 503 database_unavailable with Retry-After, no SDK text', (name) => {
  const log = quiet();
  const result = errorResult(Object.assign(new Error(`${name}: detail from AWS`), { name, $metadata: {} }));
  expect(result.statusCode).toBe(503);
  expect(result.headers['retry-after']).toBe('1');
  expect(body(result).data).toEqual({ error: 'database_unavailable' });
  expect(result.body).not.toContain('AWS');
  log.mockRestore();
});

test('a socket error, even wrapped by the SDK, is 503', () => {
  const log = quiet();
  expect(errorResult(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })).statusCode).toBe(503);
  expect(errorResult(new Error('AWS SDK error wrapper for Error: read ECONNRESET')).statusCode).toBe(503);
  log.mockRestore();
});

test('DynamoDB refusing an oversized item is 413, and bulk counts reach the envelope', () => {
  const error = Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException', partial: { updated: 3, matched: 5, failed: 2 } });
  const result = errorResult(error);
  expect(result.statusCode).toBe(413);
  expect(body(result).data).toEqual({ error: 'payload_too_large', updated: 3, matched: 5, failed: 2 });
});
