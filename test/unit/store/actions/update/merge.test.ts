import { storedItem } from '../../../../../shared/store/actions/create/item';
import { updatedItem } from '../../../../../shared/store/actions/update/merge';
import type { Item } from '../../../../../shared/store/read/query';
import { noteModel } from '../../../../support/models';

const note = noteModel('note', 4);
const NOW = '2026-11-23T10:00:00.000Z';
const item: Item = { ...storedItem(note, { id: 'n1', data: { title: 'Old', rank: 1, done: false } }, NOW, 'w0'), _version: 3 };

test('updatedItem carries the new data, its index keys and the next version', () => {
  const next = updatedItem(note, item, { title: 'New' });
  expect(next).toMatchObject({ d: { title: 'New' }, _version: 4, g2sk: '"New\u0000n1', g1sk: '!\u0000n1', _created_at: NOW, _w: 'w0' });
});
