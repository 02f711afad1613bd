import { settings } from '../../../../shared/config';
import { shardOf } from '../../../../shared/store/keys';
import { LIMITS } from '../../../../shared/limits';
import { currentItemParams, rememberedAfter, writtenBy } from '../../../../shared/store/write/write-token';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 4);

test("currentItemParams reads the record's own item, strongly consistent", () => {
  expect(currentItemParams(note, 'n1')).toEqual({
    TableName: settings().TABLE_NAME,
    Key: { pk: `note#${shardOf(note, 'n1')}`, sk: 'n1' },
    ConsistentRead: true,
  });
});

describe('rememberedAfter', () => {
  test('adds the run last, once, and keeps the newest within the limit', () => {
    const runs = Array.from({ length: LIMITS.rememberedKeyRuns }, (_, i) => `r${i}`);
    expect(rememberedAfter(undefined, 'op')).toEqual(['op']);
    expect(rememberedAfter({ _k: ['a', 'op', 'b'] }, 'op')).toEqual(['a', 'b', 'op']);
    const after = rememberedAfter({ _k: runs }, 'op');
    expect(after).toHaveLength(LIMITS.rememberedKeyRuns);
    expect(after).toEqual([...runs.slice(1), 'op']);
  });

  test('a remembered run is recognised after another writer stamped the record', () => {
    expect(writtenBy({ _w: 'other-token', _k: rememberedAfter(undefined, 'op') }, 'op')).toBe(true);
    expect(writtenBy({ _w: 'op.3' }, 'op')).toBe(true);
    expect(writtenBy({ _w: 'other-token', _k: ['op2'] }, 'op')).toBe(false);
  });
});
