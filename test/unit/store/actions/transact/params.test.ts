import { storedItem } from '../../../../../shared/store/actions/create/item';
import { putParams } from '../../../../../shared/store/actions/create/params';
import { transactParams, type TransactStep } from '../../../../../shared/store/actions/transact/params';
import { parseFilter } from '../../../../../shared/store/filter/parse';
import { ExpressionBuilder } from '../../../../../shared/store/filter/expression';
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

// An update's clauses as shared/store/operators/compile.ts makes them: its own placeholders on its own builder.
const x = new ExpressionBuilder();
const clauses = {
  x,
  set: [`${x.path(['d', 'rank'])} = ${x.value(3)}`],
  remove: [x.path(['d', 'meta'])],
  condition: `${x.path(['d', 'rank'])} >= ${x.value(-3)}`,
};

const steps: TransactStep[] = [
  { op: 'create', model: note, item: storedItem(note, { id: 'c1', data: { title: 'new' } }, now, 'w0') },
  { op: 'update', model: note, id: 'u1', clauses, filter: parseFilter(note, { done: false }), changes: { list: [] } },
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

test("an update is its clauses with the write's stamp, on a record that exists, matches its filters and meets the clauses' condition", () => {
  const { Update } = params.TransactItems![1];
  const { update, condition } = readable(Update!);
  expect(update).toBe(`SET d.rank = 3, _updated_at = "${now}", _version = _version + 1, _w = "w1", _rq = null, _by = null REMOVE d.meta`);
  expect(condition).toBe('attribute_exists(pk) AND d.done = false AND d.rank >= -3');
  expect(Update!.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  // The step's own builder is left as it was: params made again are the same.
  expect(transactParams({ steps, requestToken: 'request-1', writeTokenOf: (i) => `w${i}`, now })).toEqual(params);
});

test('a delete and a check hold the record to exist and match; the old item comes back to tell missing from not matching', () => {
  const [, , { Delete }, { ConditionCheck }] = params.TransactItems!;
  expect(readable(Delete!).condition).toBe('attribute_exists(pk)');
  expect(readable(ConditionCheck!).condition).toBe('attribute_exists(pk) AND d.rank >= 1');
  expect([Delete!.Key!.sk, ConditionCheck!.Key!.sk]).toEqual(['d1', 'k1']);
  expect([Delete!.ReturnValuesOnConditionCheckFailure, ConditionCheck!.ReturnValuesOnConditionCheckFailure]).toEqual(['ALL_OLD', 'ALL_OLD']);
});
