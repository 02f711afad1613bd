import { waitsForDatabase } from '../../../../shared/onebot/keep/kept';
import { BatchOutOfTime, InvalidRecord, ItemTooLarge, OutcomeUnknown, PartialWrite, RecordExists, TableUnreachable } from '../../../../shared/store/errors';

const sdkError = (name: string, statusCode = 400) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: statusCode } });

// docs/decisions.md, "OneBot decides on the store's error classes": a delivery is kept, and a kept
// one waits, for an outage or a misconfiguration, a write whose outcome is unknown among them
// (stored once when the database is back, found by its delivery id), never for bad data.
test.each([
  ['a write whose outcome is unknown', new OutcomeUnknown('e1', new Error('socket hang up'))],
  ['a batch that ran out of time', new BatchOutOfTime()],
  ['an unreachable table', new TableUnreachable(new Error('ECONNREFUSED'))],
  ['the same inside a partial bulk write', new PartialWrite(new OutcomeUnknown('e1', new Error('x')), { matched: 2, updated: 1, failed: 1 })],
  ['a missing table', sdkError('ResourceNotFoundException')],
  ['throttling', sdkError('ProvisionedThroughputExceededException')],
  ['the service unavailable', sdkError('ServiceUnavailable', 503)],
])('%s waits for the database', (_name, error) => {
  expect(waitsForDatabase(error)).toBe(true);
});

test.each([
  ['an invalid record', new InvalidRecord([{ path: 'data.x', message: 'bad' }])],
  ['an existing id', new RecordExists('onebot_event', ['e1'])],
  ['an item over 400 KB', new ItemTooLarge('e1', 500_000, 400_000)],
  ['a plain bug', new TypeError('x is undefined')],
])('%s does not', (_name, error) => {
  expect(waitsForDatabase(error)).toBe(false);
});
