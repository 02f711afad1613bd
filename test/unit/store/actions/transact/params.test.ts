import { storedItem } from '../../../../../shared/store/actions/create/item';
import { putParams } from '../../../../../shared/store/actions/create/params';
import { transactParams, type TransactStep } from '../../../../../shared/store/actions/transact/params';
import { parseFilter } from '../../../../../shared/store/filter/parse';
import { indexSortKey } from '../../../../../shared/store/keys';
import { noteModel } from '../../../../support/models';
import { readableExpression } from '../../../../support/readable-query';

const note = noteModel('note', 4);
const now = '2026-11-27T00:00:00.000Z';
const readable = (action: {
  UpdateExpression?: string;
  ConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}) => ({
  update: action.UpdateExpression && readableExpression(action.UpdateExpression, action.ExpressionAttributeNames, action.ExpressionAttributeValues),
  condition: readableExpression(action.ConditionExpression, action.ExpressionAttributeNames, action.ExpressionAttributeValues),
});

const steps: TransactStep[] = [
  { op: 'create', model: note, item: storedItem(note, { id: 'c1', data: { title: 'new' } }, now, 'w0') },
  { op: 'update', model: note, id: 'u1', set: { rank: 3, done: true }, remove: ['title', 'meta'], filter: parseFilter(note, { done: false }) },
  { op: 'delete', model: note, id: 'd1', filter: parseFilter(note, {}) },
  { op: 'check', model: note, id: 'k1', filter: parseFilter(note, { rank: { $gte: 1 } }) },
];
const params = transactParams({ steps, requestToken: 'request-1', writeTokenOf: (i) => `w${i}`, now });

test('one action per operation, in their order, under the request token', () => {
  expect(params.ClientRequestToken).toBe('request-1');
  expect(params.TransactItems?.map((action) => Object.keys(action)[0])).toEqual(['Put', 'Update', 'Delete', 'ConditionCheck']);
});

test('a create is the item a single create stores, written only where no record is', () => {
  const { Put } = params.TransactItems![0];
  expect(Put).toEqual(putParams(storedItem(note, { id: 'c1', data: { title: 'new' } }, now, 'w0')));
});

test('an update sets and removes fields in place, with the index keys of the fields it changes and its stamp, on a record that exists and matches', () => {
  const { Update } = params.TransactItems![1];
  const { update, condition } = readable(Update!);
  expect(update).toBe(
    `SET d.rank = 3, d.done = true, g1pk = "note#rank#${Update!.Key!.pk.split('#')[1]}", g1sk = ${JSON.stringify(indexSortKey(3, 'u1'))}, ` +
      `g2pk = "note#title#${Update!.Key!.pk.split('#')[1]}", g2sk = ${JSON.stringify(indexSortKey(undefined, 'u1'))}, ` +
      `_updated_at = "${now}", _version = _version + 1, _w = "w1" REMOVE d.title, d.meta`,
  );
  expect(condition).toBe('attribute_exists(pk) AND d.done = false');
  expect(Update!.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
});

test('a delete and a check hold the record to exist and match; the old item comes back to tell missing from not matching', () => {
  const [, , { Delete }, { ConditionCheck }] = params.TransactItems!;
  expect(readable(Delete!).condition).toBe('attribute_exists(pk)');
  expect(readable(ConditionCheck!).condition).toBe('attribute_exists(pk) AND d.rank >= 1');
  expect([Delete!.Key!.sk, ConditionCheck!.Key!.sk]).toEqual(['d1', 'k1']);
  expect([Delete!.ReturnValuesOnConditionCheckFailure, ConditionCheck!.ReturnValuesOnConditionCheckFailure]).toEqual(['ALL_OLD', 'ALL_OLD']);
});
