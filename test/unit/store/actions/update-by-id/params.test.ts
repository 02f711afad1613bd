import { setFieldsParams } from '../../../../../shared/store/actions/update-by-id/params';
import { noteModel } from '../../../../support/models';
import { readableExpression } from '../../../../support/readable-query';

const note = noteModel('note', 4);

test('sets each field in place with a version one higher, only on a record that exists', () => {
  const params = setFieldsParams(note, { id: 'n1', values: { done: true, meta: { stars: 2 } }, writeToken: 'w1', now: '2026-11-24T00:00:00.000Z' });
  const { ExpressionAttributeNames: names, ExpressionAttributeValues: values } = params;
  expect(readableExpression(params.UpdateExpression, names, values)).toBe(
    'SET d.done = true, d.meta = {"stars":2}, _updated_at = "2026-11-24T00:00:00.000Z", _version = _version + 1, _w = "w1", _rq = null, _by = null',
  );
  expect(readableExpression(params.ConditionExpression, names, values)).toBe('attribute_exists(pk)');
  expect(params.Key).toEqual({ pk: expect.stringMatching(/^note#\d$/), sk: 'n1' });
});
