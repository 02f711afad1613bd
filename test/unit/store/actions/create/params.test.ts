import { settings } from '../../../../../shared/config';
import { storedItem } from '../../../../../shared/store/actions/create/item';
import { batchParams, putParams } from '../../../../../shared/store/actions/create/params';
import { noteModel } from '../../../../support/models';

const note = noteModel('note', 4);
const NOW = '2026-11-23T10:00:00.000Z';
const item = storedItem(note, { id: 'n1', data: { title: 'Hello', rank: 5 } }, NOW, 'token-1');

test('putParams writes the item only where no item has its key', () => {
  expect(putParams(item)).toEqual({
    TableName: settings().TABLE_NAME,
    Item: item,
    ConditionExpression: 'attribute_not_exists(#pk)',
    ExpressionAttributeNames: { '#pk': 'pk' },
  });
});

test('batchParams writes every item of a batch in one transaction, each only where no item has its key', () => {
  const other = storedItem(note, { id: 'n2', data: { title: 'y' } }, NOW, 't2');
  expect(batchParams([item, other])).toEqual({ TransactItems: [{ Put: putParams(item) }, { Put: putParams(other) }] });
});
