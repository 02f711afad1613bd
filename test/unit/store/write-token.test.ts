import { settings } from '../../../shared/config';
import { shardOf } from '../../../shared/store/keys';
import { currentItemParams } from '../../../shared/store/write-token';
import { noteModel } from '../../support/models';

const note = noteModel('note', 4);

test("currentItemParams reads the record's own item, strongly consistent", () => {
  expect(currentItemParams(note, 'n1')).toEqual({
    TableName: settings().TABLE_NAME,
    Key: { pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' },
    ConsistentRead: true,
  });
});
