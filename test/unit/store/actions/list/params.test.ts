import { listRead } from '../../../../../shared/store/actions/list/params';
import { queryFingerprint } from '../../../../../shared/store/cursor/cursor';
import { InvalidFilter, InvalidOrder, UnknownField } from '../../../../../shared/store/errors';
import { noteModel } from '../../../../support/models';
import { readableQuery } from '../../../../support/readable-query';

const note = noteModel('note', 4);

describe('listRead', () => {
  test('an order_by on an indexed field reads its index in that direction, never consistently', () => {
    const { options } = listRead(note, { order_by: '-title', consistent: true });
    expect(options.plan.shards).toEqual([0, 1, 2, 3]);
    expect(readableQuery(options, 2)).toMatchObject({ IndexName: 'gsi2', KeyConditionExpression: 'g2pk = "note#title#2"', ScanIndexForward: false });
    expect(readableQuery(options, 2).ConsistentRead).toBeUndefined();
  });

  test('a filter off the keys becomes the FilterExpression; the fingerprint binds filters and order', () => {
    const request = { filters: { done: true }, order_by: 'id' };
    const { options, fingerprint } = listRead(note, request);
    expect(readableQuery(options, 1)).toMatchObject({ KeyConditionExpression: 'pk = "note#1"', FilterExpression: 'd.done = true' });
    expect(fingerprint).toBe(queryFingerprint(request.filters, request.order_by));
    expect(fingerprint).not.toBe(listRead(note, { filters: { done: true } }).fingerprint);
  });

  test('refuses in a fixed order: filter, then order, then fields', () => {
    expect(() => listRead(note, { filters: { rank: 'x' }, order_by: 'done', fields: ['nope'] })).toThrow(InvalidFilter);
    expect(() => listRead(note, { order_by: 'done', fields: ['nope'] })).toThrow(InvalidOrder);
    expect(() => listRead(note, { fields: ['nope'] })).toThrow(UnknownField);
  });
});
