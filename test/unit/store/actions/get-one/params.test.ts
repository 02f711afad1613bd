import { settings } from '../../../../../shared/config';
import { getOneRead } from '../../../../../shared/store/actions/get-one/params';
import { UnknownField } from '../../../../../shared/store/errors';
import { shardOf } from '../../../../../shared/store/keys';
import { noteModel } from '../../../../support/models';
import { readableQuery } from '../../../../support/readable-query';

const note = noteModel('note', 4);

describe('getOneRead', () => {
  test('by id: one shard, one key, consistent when asked', () => {
    const options = getOneRead(note, { filters: { id: 'n1' }, consistent: true });
    expect(options.plan.shards).toEqual([shardOf(note, 'n1')]);
    expect(readableQuery(options)).toMatchObject({
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
