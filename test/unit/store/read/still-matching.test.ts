import { settings } from '../../../../shared/config';
import { parseFilter } from '../../../../shared/store/filter/parse';
import { shardOf } from '../../../../shared/store/keys';
import { rereadParams } from '../../../../shared/store/read/still-matching';
import { noteModel } from '../../../support/models';
import { readableExpression } from '../../../support/readable-query';

const note = noteModel('note', 4);

test("rereadParams queries the one item, consistently, filtered by the write's filter", () => {
  const params = rereadParams(note, parseFilter(note, { title: 'Old' }), 'n1');
  const names = params.ExpressionAttributeNames!;
  const values = params.ExpressionAttributeValues!;
  expect(params).toMatchObject({ TableName: settings().TABLE_NAME, ConsistentRead: true });
  expect(params.IndexName).toBeUndefined();
  expect(readableExpression(params.KeyConditionExpression, names, values)).toBe(`pk = "note#${shardOf(note, 'n1')}" AND sk = "n1"`);
  expect(readableExpression(params.FilterExpression, names, values)).toBe('d.title = "Old"');
});
