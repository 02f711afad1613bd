import { settings } from '../../../../../shared/config';
import { deleteParams } from '../../../../../shared/store/actions/delete/params';
import { parseFilter } from '../../../../../shared/store/filter/parse';
import { shardOf } from '../../../../../shared/store/keys';
import { noteModel } from '../../../../support/models';
import { readableExpression } from '../../../../support/readable-query';

const note = noteModel('note', 4);
const read = (id: string, token: string | undefined, version = 3) => ({ id, _w: token, _version: version });

test('deleteParams deletes the record only if it still matches the filter and nothing was written to it since it was read', () => {
  const params = deleteParams(note, parseFilter(note, { rank: { $gt: 2 } }))(read('n1', 't1'));
  expect(params.TableName).toBe(settings().TABLE_NAME);
  expect(params.Key).toEqual({ pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' });
  expect(readableExpression(params.ConditionExpression, params.ExpressionAttributeNames, params.ExpressionAttributeValues)).toBe('d.rank > 2 AND _w = "t1"');
});

test("with allow_all's empty filter the condition is the record as read alone", () => {
  const params = deleteParams(note, parseFilter(note, {}))(read('n1', 't1'));
  expect(readableExpression(params.ConditionExpression, params.ExpressionAttributeNames, params.ExpressionAttributeValues)).toBe('_w = "t1"');
});

test('a record stored without a write token is held to its version', () => {
  const params = deleteParams(note, parseFilter(note, {}))(read('n1', undefined, 4));
  expect(readableExpression(params.ConditionExpression, params.ExpressionAttributeNames, params.ExpressionAttributeValues)).toBe(
    'attribute_not_exists(_w) AND _version = 4',
  );
});

test('every record of a request is deleted under the one filter and its own token, each by its own key, the shared placeholders left as they were', () => {
  const paramsOf = deleteParams(note, parseFilter(note, { rank: { $in: [1, 2] } }));
  const [a, b] = [paramsOf(read('n1', 't1')), paramsOf(read('n2', 't2'))];
  expect(b.Key).toEqual({ pk: `note#${shardOf(note, 'n2')}`, sk: 'n2' });
  expect(a.Key).toEqual({ pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' });
  expect(readableExpression(a.ConditionExpression, a.ExpressionAttributeNames, a.ExpressionAttributeValues)).toBe('d.rank IN (1, 2) AND _w = "t1"');
  expect(readableExpression(b.ConditionExpression, b.ExpressionAttributeNames, b.ExpressionAttributeValues)).toBe('d.rank IN (1, 2) AND _w = "t2"');
});
