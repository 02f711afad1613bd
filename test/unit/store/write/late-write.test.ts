import type { Item } from '../../../../shared/store/read/query';
import { judgeChange, judgeCreate } from '../../../../shared/store/write/late-write';

const before: Item = { id: 'r1', _w: 'read-token', _version: 4, _created_at: '2026-11-01T00:00:00.000Z' };
const ours = (item: Item) => item._w === 'our-token';
const other = (change: Partial<Item>): Item => ({ ...before, _w: 'another-token', ...change });

describe('judgeCreate', () => {
  const judge = judgeCreate(ours);

  test('absent: none landed yet', () => {
    expect(judge(undefined)).toEqual({ kind: 'pending' });
  });

  test("ours: landed, with the item as that copy wrote it; anyone else's: never will", () => {
    const landed = { id: 'r1', _w: 'our-token' };
    expect(judge(landed)).toEqual({ kind: 'applied', item: landed });
    expect(judge({ id: 'r1', _w: 'another-token' })).toEqual({ kind: 'not_applied' });
  });
});

describe('judgeChange', () => {
  const update = judgeChange(before, ours, { deletes: false });
  const remove = judgeChange(before, ours, { deletes: true });

  test('still as read: none landed yet', () => {
    expect(update({ ...before })).toEqual({ kind: 'pending' });
    expect(remove({ ...before })).toEqual({ kind: 'pending' });
  });

  test('our copy found: applied', () => {
    const landed = { ...before, _w: 'our-token', _version: 5 };
    expect(update(landed)).toEqual({ kind: 'applied', item: landed });
  });

  test('gone: a delete landed; an update cannot tell whether it landed first', () => {
    expect(remove(undefined)).toEqual({ kind: 'applied' });
    expect(update(undefined)).toEqual({ kind: 'unknown' });
  });

  test('made again (another creation time): the record read was deleted', () => {
    const remade = other({ _version: 1, _created_at: '2026-11-02T00:00:00.000Z' });
    expect(remove(remade)).toEqual({ kind: 'applied' });
    expect(update(remade)).toEqual({ kind: 'unknown' });
  });

  test('changed by another writer: a delete never landed; an update did not if the other write took the very next version', () => {
    expect(remove(other({ _version: 7 }))).toEqual({ kind: 'not_applied' });
    expect(update(other({ _version: 5 }))).toEqual({ kind: 'not_applied' });
    expect(update(other({ _version: 6 }))).toEqual({ kind: 'unknown' });
  });
});
