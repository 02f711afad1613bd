import { UnknownField } from '../../../../shared/store/errors';
import { checkFields, toRecord } from '../../../../shared/store/read/projection';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 2);
const item = {
  pk: 'note#1',
  sk: 'n1',
  g1pk: 'note#rank#1',
  _w: 'token',
  id: 'n1',
  d: { title: 'Hello', rank: 5 },
  _created_at: '2026-11-01T00:00:00.000Z',
  _updated_at: '2026-11-02T00:00:00.000Z',
  _version: 2,
};

describe('toRecord', () => {
  test("shows id, the model's fields and the system fields, and none of the item's keys or tokens", () => {
    const record = toRecord(item);
    expect(record).toEqual({ id: 'n1', title: 'Hello', rank: 5, _created_at: item._created_at, _updated_at: item._updated_at, _version: 2 });
    expect(Object.keys(record)).toEqual(['id', 'title', 'rank', '_created_at', '_updated_at', '_version']);
  });

  test('with fields, only id and those the record has', () => {
    expect(toRecord(item, ['rank', 'done', '_version'])).toEqual({ id: 'n1', rank: 5, _version: 2 });
  });
});

describe('checkFields', () => {
  test("takes the model's fields and the system fields, or no list at all", () => {
    expect(() => checkFields(note, ['title', 'meta', '_version', 'id'])).not.toThrow();
    expect(() => checkFields(note, undefined)).not.toThrow();
  });

  test('refuses a field the model does not have, listing the ones it has', () => {
    expect(() => checkFields(note, ['title', 'nope'])).toThrow(UnknownField);
    expect(() => checkFields(note, ['nope'])).toThrow(
      expect.objectContaining({ field: 'nope', detail: { path: 'fields', message: 'unknown field nope' }, available: expect.arrayContaining(['title', 'id']) }),
    );
  });

  test('a dotted path into a field the model has is told to ask for the whole field', () => {
    expect(() => checkFields(note, ['meta.stars'])).toThrow(
      expect.objectContaining({ detail: expect.objectContaining({ message: expect.stringMatching(/ask for "meta"/) }) }),
    );
  });
});
