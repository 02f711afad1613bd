import { settings } from '../../../../shared/config';
import { deleteParams } from '../../../../shared/store/actions/delete/params';
import { parseFilter } from '../../../../shared/store/filter/parse';
import { shardOf } from '../../../../shared/store/keys';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 4);

const readable = (text: string | undefined, names: Record<string, string> = {}, values: Record<string, unknown> = {}) =>
  (text ?? '').replace(/#n\d+/g, (n) => names[n]).replace(/:v\d+/g, (v) => JSON.stringify(values[v]));

test('deleteParams deletes the record only if it exists and still matches the filter', () => {
  const params = deleteParams(note, parseFilter(note, { rank: { $gt: 2 } }))('n1');
  expect(params.TableName).toBe(settings().TABLE_NAME);
  expect(params.Key).toEqual({ pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' });
  expect(readable(params.ConditionExpression, params.ExpressionAttributeNames, params.ExpressionAttributeValues)).toBe('attribute_exists(pk) AND d.rank > 2');
});

test("with allow_all's empty filter the condition is existence alone", () => {
  const params = deleteParams(note, parseFilter(note, {}))('n1');
  expect(readable(params.ConditionExpression, params.ExpressionAttributeNames)).toBe('attribute_exists(pk)');
  expect(params.ExpressionAttributeValues).toBeUndefined();
});

test('every record of a request is deleted under the one condition, each by its own key', () => {
  const paramsOf = deleteParams(note, parseFilter(note, { rank: { $in: [1, 2] } }));
  const [a, b] = [paramsOf('n1'), paramsOf('n2')];
  expect(b.Key).toEqual({ pk: `note#${shardOf(note, 'n2')}`, sk: 'n2' });
  expect(a.Key).toEqual({ pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' });
  expect(readable(b.ConditionExpression, b.ExpressionAttributeNames, b.ExpressionAttributeValues)).toBe(
    readable(a.ConditionExpression, a.ExpressionAttributeNames, a.ExpressionAttributeValues),
  );
});
