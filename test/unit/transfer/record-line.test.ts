import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { keptFromLine, recordLine } from '../../../scripts/transfer/record-line';

test('a record goes to one line and back with its numbers to the digit and its system fields', () => {
  const record = {
    id: 'r1',
    big: NumberValue.from('18446744073709551617'),
    amount: NumberValue.from('0.1234567890123456789012345'),
    meta: { n: 1.5 },
    _created_at: '2026-01-01T00:00:00.000Z',
    _updated_at: '2026-01-02T00:00:00.000Z',
    _version: 3,
  };
  const line = recordLine(record);
  expect(line).toBe(
    '{"id":"r1","big":18446744073709551617,"amount":0.1234567890123456789012345,"meta":{"n":1.5},"_created_at":"2026-01-01T00:00:00.000Z","_updated_at":"2026-01-02T00:00:00.000Z","_version":3}\n',
  );
  expect(keptFromLine(line.trim())).toEqual({
    id: 'r1',
    data: { big: record.big, amount: record.amount, meta: { n: 1.5 } },
    system: { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z', version: 3 },
  });
});

test('a line without system fields is a new record', () => {
  expect(keptFromLine('{"id":"x","a":1}')).toEqual({ id: 'x', data: { a: 1 } });
});

test.each([
  ['not JSON', '{"id":', ''],
  ['not an object', '[1]', ''],
  ['no id', '{"a":1}', 'id'],
  ['an empty id', '{"id":"","a":1}', 'id'],
  ['a repeated key', '{"id":"a","id":"b"}', ''],
  ['some system fields only', '{"id":"a","_version":2}', '_created_at'],
  ['a version of 0', '{"id":"a","_created_at":"2026-01-01T00:00:00Z","_updated_at":"2026-01-01T00:00:00Z","_version":0}', '_version'],
  ['a time that is none', '{"id":"a","_created_at":"yesterday","_updated_at":"2026-01-01T00:00:00Z","_version":1}', '_created_at'],
])('refuses %s, saying where', (_, line, path) => {
  const problems = keptFromLine(line);
  expect(Array.isArray(problems)).toBe(true);
  expect((problems as Array<{ path: string }>).map((p) => p.path)).toContain(path);
});
