import { classify } from '../../../shared/answer/respond';
import { waitsForDatabase } from '../../../shared/onebot/keep/kept';
import {
  BatchOutOfTime,
  InvalidRecord,
  ItemTooLarge,
  OutcomeUnknown,
  PartialWrite,
  RecordBusy,
  RecordExists,
  TableUnreachable,
} from '../../../shared/store/errors';
import { whyUnavailable } from '../../../shared/store/unavailable';

const sdkError = (name: string, statusCode = 400, extra: object = {}) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: statusCode }, ...extra });

const ERRORS: ReadonlyArray<[string, unknown]> = [
  ['a write whose outcome is unknown', new OutcomeUnknown('e1', new Error('socket hang up'))],
  ['a batch out of time', new BatchOutOfTime()],
  ['an unreachable table', new TableUnreachable(new Error('ECONNREFUSED'))],
  ['an unknown outcome inside a partial bulk write', new PartialWrite(new OutcomeUnknown('e1', new Error('x')), { matched: 2, updated: 1, failed: 1 })],
  ['a missing table', sdkError('ResourceNotFoundException')],
  ['a denied action', sdkError('AccessDeniedException')],
  ['credentials refused', sdkError('UnrecognizedClientException')],
  ['throttling', sdkError('ProvisionedThroughputExceededException')],
  ['the service unavailable', sdkError('ServiceUnavailable', 503)],
  ['an answer timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
  ['an invalid record', new InvalidRecord([{ path: 'data.x', message: 'bad' }])],
  ['an existing id', new RecordExists('onebot_event', ['e1'])],
  ['an item over 400 KB', new ItemTooLarge('e1', 500_000, 400_000)],
  ['a busy record', new RecordBusy('e1')],
  ['a validation error of the SDK', sdkError('ValidationException')],
  ['a plain bug', new TypeError('x is undefined')],
];

// Issue 31: "is the database down" was decided twice, by the record API's answer and by the OneBot
// receiver's choice to keep a delivery; one decision now serves both, so they cannot drift apart.
test.each(ERRORS)('%s: the record API answers it as the database, exactly when the receiver keeps the delivery through it', (_name, error) => {
  const answer = classify(error);
  const databaseAnswer = ['database_unavailable', 'outcome_unknown', 'misconfigured'].includes(answer.code);
  expect(databaseAnswer).toBe(whyUnavailable(error) !== undefined);
  expect(waitsForDatabase(error)).toBe(databaseAnswer);
});

test('each kind is answered as before: 503 with Retry-After to wait out, 500 for what an operator must fix', () => {
  expect(classify(new OutcomeUnknown('e1', new Error('x')))).toMatchObject({ status: 503, code: 'outcome_unknown', extra: { id: 'e1' } });
  expect(classify(new TableUnreachable(new Error('x')))).toMatchObject({ status: 503, code: 'database_unavailable', extra: { database: 'unavailable' } });
  expect(classify(sdkError('ResourceNotFoundException'))).toMatchObject({ status: 500, code: 'misconfigured', extra: { problem: 'table_missing' } });
  expect(classify(sdkError('ServiceUnavailable', 503)).headers).toEqual({ 'retry-after': '1' });
  expect(classify(new PartialWrite(new OutcomeUnknown('e1', new Error('x')), { matched: 2, updated: 1, failed: 1 }))).toMatchObject({
    code: 'outcome_unknown',
    extra: { id: 'e1', matched: 2, updated: 1 },
  });
});
