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

// What the database's trouble is, for each error the record API or the OneBot receiver meets:
// an outage or a misconfiguration, a write whose outcome is unknown among them, never bad data.
const ERRORS: ReadonlyArray<[string, unknown, string | undefined]> = [
  ['a write whose outcome is unknown', new OutcomeUnknown('e1', new Error('socket hang up')), 'outcome_unknown'],
  ['a batch out of time', new BatchOutOfTime(), 'out_of_time'],
  ['an unreachable table', new TableUnreachable(new Error('ECONNREFUSED')), 'unreachable'],
  [
    'an unknown outcome inside a partial bulk write',
    new PartialWrite(new OutcomeUnknown('e1', new Error('x')), { matched: 2, updated: 1, failed: 1 }),
    'outcome_unknown',
  ],
  ['a missing table', sdkError('ResourceNotFoundException'), 'misconfigured'],
  ['a denied action', sdkError('AccessDeniedException'), 'misconfigured'],
  ['credentials refused', sdkError('UnrecognizedClientException'), 'misconfigured'],
  ['throttling', sdkError('ProvisionedThroughputExceededException'), 'overloaded'],
  ['the service unavailable', sdkError('ServiceUnavailable', 503), 'overloaded'],
  ['an answer timeout', Object.assign(new Error('timed out'), { name: 'TimeoutError' }), 'timeout'],
  ['an invalid record', new InvalidRecord([{ path: 'data.x', message: 'bad' }]), undefined],
  ['an existing id', new RecordExists('onebot_event', ['e1']), undefined],
  ['an item over 400 KB', new ItemTooLarge('e1', 500_000, 400_000), undefined],
  ['a busy record', new RecordBusy('e1'), undefined],
  ['a validation error of the SDK', sdkError('ValidationException'), undefined],
  ['a plain bug', new TypeError('x is undefined'), undefined],
];

// Issue 31: "is the database down" was decided twice, by the record API's answer and by the OneBot
// receiver's choice to keep a delivery (docs/decisions.md, "OneBot decides on the store's error
// classes"); one decision now serves both, so they cannot drift apart.
test.each(ERRORS)('%s (%s): the API answers it as the database exactly when the receiver keeps the delivery', (_name, error, kind) => {
  expect(whyUnavailable(error)?.kind).toBe(kind);
  const answer = classify(error);
  expect(['database_unavailable', 'outcome_unknown', 'misconfigured'].includes(answer.code)).toBe(kind !== undefined);
  expect(waitsForDatabase(error)).toBe(kind !== undefined);
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
