import { countRead } from '../../../../../shared/store/actions/count/params';
import { noteModel } from '../../../../support/models';
import { readableQuery } from '../../../../support/readable-query';

const note = noteModel('note', 4);

test('countRead plans like get_one and leaves Select to the counting loop', () => {
  const options = countRead(note, { filters: { rank: 5 } });
  expect(readableQuery(options, 3)).toMatchObject({
    IndexName: 'gsi1',
    KeyConditionExpression: expect.stringMatching(/^g1pk = "note#rank#3" AND begins_with\(g1sk, /),
  });
  expect(readableQuery(options, 3).Select).toBeUndefined();
});
