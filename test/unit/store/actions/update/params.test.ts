import { settings } from '../../../../../shared/config';
import { storedItem } from '../../../../../shared/store/actions/create/item';
import { updateParams } from '../../../../../shared/store/actions/update/params';
import { indexSortKey, shardOf } from '../../../../../shared/store/keys';
import type { Item } from '../../../../../shared/store/read/query';
import { servingCaller, withinInvocation } from '../../../../../shared/invocation';
import { noteModel } from '../../../../support/models';
import { readableExpression } from '../../../../support/readable-query';

const note = noteModel('note', 4);
const NOW = '2026-11-23T10:00:00.000Z';
const item: Item = { ...storedItem(note, { id: 'n1', data: { title: 'Old', rank: 1, done: false } }, NOW, 'w0'), _version: 3 };

test('updateParams sets data, stamp, version, token and both keys of every index slot, on the condition of the token read', () => {
  const shard = shardOf(note, 'n1');
  const params = updateParams(note, { item, data: { title: 'New', rank: 2 }, writeToken: 'w1', now: '2026-11-24T00:00:00.000Z' });
  const names = params.ExpressionAttributeNames!;
  const values = params.ExpressionAttributeValues!;
  expect(params.TableName).toBe(settings().TABLE_NAME);
  expect(params.Key).toEqual({ pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' });
  expect(readableExpression(params.UpdateExpression, names, values)).toBe(
    `SET d = {"title":"New","rank":2}, _updated_at = "2026-11-24T00:00:00.000Z", _version = _version + 1, _w = "w1", _rq = null, _by = null, ` +
      `g1pk = "note#rank#${shard}", g1sk = ${JSON.stringify(indexSortKey(2, 'n1'))}, ` +
      `g2pk = "note#title#${shard}", g2sk = ${JSON.stringify(indexSortKey('New', 'n1'))}`,
  );
  expect(readableExpression(params.ConditionExpression, names, values)).toBe('_w = "w0"');
});

test('under an Idempotency-Key, updateParams also sets the keyed runs the record remembers', () => {
  const params = updateParams(note, { item, data: { title: 'New' }, writeToken: 'op.1', now: NOW, keyRuns: ['older', 'op'] });
  expect(readableExpression(params.UpdateExpression, params.ExpressionAttributeNames, params.ExpressionAttributeValues)).toContain('_k = ["older","op"]');
});

test('inside an invocation whose caller is known, an update names the request and the caller for the change feed', async () => {
  const params = await withinInvocation({ awsRequestId: 'req-2' }, async () => {
    servingCaller('jwt:digest');
    return updateParams(note, { item, data: { title: 'New' }, writeToken: 'w1', now: NOW });
  });
  expect(readableExpression(params.UpdateExpression, params.ExpressionAttributeNames, params.ExpressionAttributeValues)).toContain(
    '_w = "w1", _rq = "req-2", _by = "jwt:digest"',
  );
});
