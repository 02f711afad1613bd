import { settings } from '../../../../shared/config';
import { countRead } from '../../../../shared/store/actions/count/params';
import { getOneRead } from '../../../../shared/store/actions/get-one/params';
import { listRead } from '../../../../shared/store/actions/list/params';
import { queryFingerprint } from '../../../../shared/store/cursor';
import { UnknownField, InvalidOrder, InvalidFilter } from '../../../../shared/store/errors';
import { shardOf } from '../../../../shared/store/keys';
import { queryInput, type ReadOptions } from '../../../../shared/store/query';
import { currentItemParams } from '../../../../shared/store/write-token';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 4);

/** The Query of one shard, placeholders resolved. */
function query(options: ReadOptions, shard = options.plan.shards[0]) {
  const input = queryInput(options, shard);
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const readable = (text?: string) => text?.replace(/#n\d+/g, (n) => names[n]).replace(/:v\d+/g, (v) => JSON.stringify(values[v]));
  return { ...input, KeyConditionExpression: readable(input.KeyConditionExpression), FilterExpression: readable(input.FilterExpression) };
}

describe('getOneRead', () => {
  test('by id: one shard, one key, consistent when asked', () => {
    const options = getOneRead(note, { filters: { id: 'n1' }, consistent: true });
    expect(options.plan.shards).toEqual([shardOf(note, 'n1')]);
    expect(query(options)).toMatchObject({
      TableName: settings().TABLE_NAME,
      KeyConditionExpression: `pk = "note#${shardOf(note, 'n1')}" AND sk = "n1"`,
      ConsistentRead: true,
      ScanIndexForward: true,
    });
  });

  test('checks the filter before fields', () => {
    expect(() => getOneRead(note, { filters: { nope: 1 }, fields: ['nope'] })).toThrow(expect.objectContaining({ path: 'filters.nope' }));
    expect(() => getOneRead(note, { filters: {}, fields: ['nope'] })).toThrow(UnknownField);
  });
});

describe('listRead', () => {
  test('an order_by on an indexed field reads its index in that direction, never consistently', () => {
    const { options } = listRead(note, { order_by: '-title', consistent: true });
    expect(options.plan.shards).toEqual([0, 1, 2, 3]);
    expect(query(options, 2)).toMatchObject({ IndexName: 'gsi2', KeyConditionExpression: 'g2pk = "note#title#2"', ScanIndexForward: false });
    expect(query(options, 2).ConsistentRead).toBeUndefined();
  });

  test('a filter off the keys becomes the FilterExpression; the fingerprint binds filters and order', () => {
    const request = { filters: { done: true }, order_by: 'id' };
    const { options, fingerprint } = listRead(note, request);
    expect(query(options, 1)).toMatchObject({ KeyConditionExpression: 'pk = "note#1"', FilterExpression: 'd.done = true' });
    expect(fingerprint).toBe(queryFingerprint(request.filters, request.order_by));
    expect(fingerprint).not.toBe(listRead(note, { filters: { done: true } }).fingerprint);
  });

  test('refuses in a fixed order: filter, then order, then fields', () => {
    expect(() => listRead(note, { filters: { rank: 'x' }, order_by: 'done', fields: ['nope'] })).toThrow(InvalidFilter);
    expect(() => listRead(note, { order_by: 'done', fields: ['nope'] })).toThrow(InvalidOrder);
    expect(() => listRead(note, { fields: ['nope'] })).toThrow(UnknownField);
  });
});

test('countRead plans like get_one and leaves Select to the counting loop', () => {
  const options = countRead(note, { filters: { rank: 5 } });
  expect(query(options, 3)).toMatchObject({
    IndexName: 'gsi1',
    KeyConditionExpression: expect.stringMatching(/^g1pk = "note#rank#3" AND begins_with\(g1sk, /),
  });
  expect(query(options, 3).Select).toBeUndefined();
});

test("currentItemParams reads the record's own item, strongly consistent", () => {
  expect(currentItemParams(note, 'n1')).toEqual({
    TableName: settings().TABLE_NAME,
    Key: { pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' },
    ConsistentRead: true,
  });
});
