import { settings } from '../../../../../shared/config';
import { storedItem } from '../../../../../shared/store/actions/create/item';
import { mergedData, updatedItem } from '../../../../../shared/store/actions/update/merge';
import { updateParams } from '../../../../../shared/store/actions/update/params';
import { indexSortKey, shardOf } from '../../../../../shared/store/keys';
import type { Item } from '../../../../../shared/store/read/query';
import { noteModel } from '../../../../support/models';

const note = noteModel('note', 4);
const NOW = '2026-11-23T10:00:00.000Z';
const item: Item = { ...storedItem(note, { id: 'n1', data: { title: 'Old', rank: 1, done: false } }, NOW, 'w0'), _version: 3 };

/** The expression with its placeholders resolved, to read as DynamoDB evaluates it. */
function readable(text: string | undefined, names: Record<string, string> = {}, values: Record<string, unknown> = {}): string {
  return (text ?? '').replace(/#n\d+/g, (n) => names[n]).replace(/:v\d+/g, (v) => JSON.stringify(values[v]));
}

describe('mergedData', () => {
  test('sets the values given and keeps every other field', () => {
    expect(mergedData(item, { title: 'New', tags: ['a'] })).toEqual({ title: 'New', rank: 1, done: false, tags: ['a'] });
  });

  test('null removes a field; false and 0 are values', () => {
    expect(mergedData(item, { rank: null, done: 0 })).toEqual({ title: 'Old', done: 0 });
  });

  test('leaves the item it read untouched', () => {
    mergedData(item, { title: 'New', rank: null });
    expect(item.d).toEqual({ title: 'Old', rank: 1, done: false });
  });
});

test('updatedItem carries the new data, its index keys and the next version', () => {
  const next = updatedItem(note, item, { title: 'New' });
  expect(next).toMatchObject({ d: { title: 'New' }, _version: 4, g2sk: '"New\u0000n1', g1sk: '!\u0000n1', _created_at: NOW, _w: 'w0' });
});

test('updateParams sets data, stamp, version, token and both keys of every index slot, on the condition of the token read', () => {
  const shard = shardOf(note, 'n1');
  const params = updateParams(note, { item, data: { title: 'New', rank: 2 }, writeToken: 'w1', now: '2026-11-24T00:00:00.000Z' });
  const names = params.ExpressionAttributeNames!;
  const values = params.ExpressionAttributeValues!;
  expect(params.TableName).toBe(settings().TABLE_NAME);
  expect(params.Key).toEqual({ pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' });
  expect(readable(params.UpdateExpression, names, values)).toBe(
    `SET d = {"title":"New","rank":2}, _updated_at = "2026-11-24T00:00:00.000Z", _version = _version + 1, _w = "w1", ` +
      `g1pk = "note#rank#${shard}", g1sk = ${JSON.stringify(indexSortKey(2, 'n1'))}, ` +
      `g2pk = "note#title#${shard}", g2sk = ${JSON.stringify(indexSortKey('New', 'n1'))}`,
  );
  expect(readable(params.ConditionExpression, names, values)).toBe('_w = "w0"');
});

test('under an Idempotency-Key, updateParams also sets the keyed runs the record remembers', () => {
  const params = updateParams(note, { item, data: { title: 'New' }, writeToken: 'op.1', now: NOW, keyRuns: ['older', 'op'] });
  expect(readable(params.UpdateExpression, params.ExpressionAttributeNames, params.ExpressionAttributeValues)).toContain('_k = ["older","op"]');
});
