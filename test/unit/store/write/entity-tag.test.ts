import { PreconditionFailed } from '../../../../shared/store/errors';
import type { Item } from '../../../../shared/store/read/query';
import { checkIfMatch, entityTag } from '../../../../shared/store/write/entity-tag';

const item: Item = { id: 'r1', _w: 'op-1.token-a', _version: 3, _created_at: '2026-11-01T00:00:00.000Z' };

test('the tag is strong, quoted, the version and a digest of the write token, and shows nothing of the token', () => {
  const tag = entityTag(item);
  expect(tag).toMatch(/^"3-[A-Za-z0-9_-]{16}"$/);
  expect(tag).not.toContain('op-1');
  expect(entityTag({ ...item })).toBe(tag);
});

test('another write token is another tag, at the same version too (a record deleted and made again)', () => {
  expect(entityTag({ ...item, _w: 'op-2.token-b' })).not.toBe(entityTag(item));
  expect(entityTag({ ...item, _w: 'op-1.token-a', _version: 4 })).not.toBe(entityTag(item));
});

test('an item stored before write tokens is told apart by its creation time', () => {
  const { _w, ...untokened } = item;
  expect(entityTag(untokened)).not.toBe(entityTag({ ...untokened, _created_at: '2026-11-02T00:00:00.000Z' }));
});

test('If-Match: strong comparison against any tag of the list; * takes any stored record; a missing record fails', () => {
  const tag = entityTag(item);
  expect(() => checkIfMatch(undefined, 'r1', undefined)).not.toThrow();
  expect(() => checkIfMatch([tag], 'r1', item)).not.toThrow();
  expect(() => checkIfMatch(['"0-x"', tag], 'r1', item)).not.toThrow();
  expect(() => checkIfMatch('*', 'r1', item)).not.toThrow();
  expect(() => checkIfMatch([`W/${tag}`], 'r1', item)).toThrow(PreconditionFailed);
  const stale = (() => {
    try {
      checkIfMatch(['"2-x"'], 'r1', item);
    } catch (error) {
      return error as PreconditionFailed;
    }
  })();
  expect(stale).toMatchObject({ id: 'r1', etag: tag });
  expect(() => checkIfMatch('*', 'r1', undefined)).toThrow(PreconditionFailed);
});
