import { InvalidRecord } from '../../shared/store/errors';
import { createRecords, updateRecordById } from '../../shared/store/records';
import { noteModel } from '../support/models';
import { storedItems } from '../support/stored';

// The single-record write the OneBot receiver uses for a bot's status and a rule's outcome:
// what is stored afterwards, on the engine the run started.
const note = noteModel('one_note', 2);
const stored = async (id: string) => (await storedItems(note)).find((item) => item.id === id);

beforeAll(async () => {
  await createRecords(note, { records: [{ id: 'a', data: { title: 'A', rank: 1, tags: ['x'] } }] }, { pathOf: () => ['data'] });
});

test('sets the fields named, keeps the others, and counts a version', async () => {
  const before = await stored('a');
  expect(await updateRecordById(note, { id: 'a', values: { done: true, meta: { stars: 3 } } })).toBe('updated');
  const after = await stored('a');
  expect(after).toMatchObject({ d: { title: 'A', rank: 1, tags: ['x'], done: true, meta: { stars: 3 } }, _version: (before!._version as number) + 1 });
  expect(after!._created_at).toBe(before!._created_at);
  expect(String(after!._updated_at) >= String(before!._updated_at)).toBe(true);
});

test('a record that does not exist is not created without orCreate', async () => {
  expect(await updateRecordById(note, { id: 'absent', values: { done: true } })).toBe('missing');
  expect(await stored('absent')).toBeUndefined();
});

test('orCreate creates the record whole on the first write, then sets fields', async () => {
  expect(await updateRecordById(note, { id: 'b', values: { done: false }, orCreate: { title: 'B', done: false } })).toBe('created');
  expect(await stored('b')).toMatchObject({ d: { title: 'B', done: false }, _version: 1 });
  expect(await updateRecordById(note, { id: 'b', values: { done: true }, orCreate: { title: 'B', done: true } })).toBe('updated');
  expect(await stored('b')).toMatchObject({ d: { title: 'B', done: true }, _version: 2 });
});

test('first writes racing on one id: one creates, the others set their fields, none is lost', async () => {
  const outcomes = await Promise.all(
    ['t0', 't1', 't2', 't3'].map((tag) =>
      updateRecordById(note, { id: 'c', values: { tags: [tag], done: true }, orCreate: { title: 'C', tags: [tag], done: true } }),
    ),
  );
  expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
  expect(outcomes.filter((o) => o === 'updated')).toHaveLength(3);
  expect(await stored('c')).toMatchObject({ d: { title: 'C', done: true }, _version: 4 });
});

test('a value the model refuses is an InvalidRecord, and nothing is written', async () => {
  const before = await stored('a');
  await expect(updateRecordById(note, { id: 'a', values: { done: 'yes' } })).rejects.toBeInstanceOf(InvalidRecord);
  await expect(updateRecordById(note, { id: 'a', values: { unknown: 1 } })).rejects.toThrow('not a plain field');
  // Index keys would go stale, and system fields are the store's: the bulk update's to write.
  await expect(updateRecordById(note, { id: 'a', values: { rank: 2 } })).rejects.toThrow('not a plain field');
  await expect(updateRecordById(note, { id: 'a', values: { _version: 9 } })).rejects.toThrow('not a plain field');
  expect(await stored('a')).toEqual(before);
});
