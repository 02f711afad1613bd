import { createHmac } from 'node:crypto';
import { decodeCursor, decodeResumeCursor, encodeCursor, encodeResumeCursor, queryFingerprint } from '../../../../shared/store/cursor/cursor';
import { PROCESS_CURSOR_KEY } from '../../../../shared/store/cursor/key';
import { InvalidCursor } from '../../../../shared/store/errors';
import { parseFilter } from '../../../../shared/store/filter/parse';
import { indexSortKey, shardOf } from '../../../../shared/store/keys';
import { ID_ORDER, parseOrder, planAccess } from '../../../../shared/store/read/plan';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 2);
const other = noteModel('other', 2);
const plan = planAccess(note, parseFilter(note, {}), ID_ORDER);
const byTitle = planAccess(note, parseFilter(note, {}), parseOrder(note, 'title'));
const fingerprint = queryFingerprint({}, undefined);

/** The payload of a cursor, re-signed by no one: what a caller who edits it sends. */
function edited(cursor: string, change: (payload: Record<string, unknown>) => void): string {
  const [payload, mac] = cursor.split('.');
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  change(decoded);
  return `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
}

const KEY = 'unit-test-cursor-key';
/** The key the caller passes, as the API passes CURSOR_SECRET. */
const key = async () => KEY;

/** A payload signed with the service's key: what someone holding the key could make. */
function signed(payload: object): string {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${createHmac('sha256', KEY).update(text).digest('base64url')}`;
}

test('a cursor gives back the one position every shard resumes after', async () => {
  const cursor = await encodeCursor(key, note, fingerprint, plan, 'n7');
  expect(await decodeCursor(key, cursor, note, fingerprint, plan)).toBe('n7');
  const onIndex = await encodeCursor(key, note, fingerprint, byTitle, indexSortKey('a title', 'n7'));
  expect(await decodeCursor(key, onIndex, note, fingerprint, byTitle)).toBe(indexSortKey('a title', 'n7'));
});

test('the position names no shard: it is the same whichever shard the record lives in', async () => {
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  expect(new Set(ids.map((id) => shardOf(note, id))).size).toBe(2);
  const payload = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
  for (const id of ids) expect(payload(await encodeCursor(key, note, fingerprint, plan, id))).toEqual({ m: 'note', q: fingerprint, k: { sk: id } });
});

test("an edited payload, a cut signature or extra parts are not this service's cursor", async () => {
  const cursor = await encodeCursor(key, note, fingerprint, plan, 'n7');
  const refused = /not one this service issued/;
  await expect(
    decodeCursor(
      key,
      edited(cursor, (p) => {
        p.k = { sk: 'n9' };
      }),
      note,
      fingerprint,
      plan,
    ),
  ).rejects.toThrow(refused);
  await expect(decodeCursor(key, cursor.slice(0, -2), note, fingerprint, plan)).rejects.toThrow(refused);
  await expect(decodeCursor(key, `${cursor}.x`, note, fingerprint, plan)).rejects.toThrow(refused);
  await expect(decodeCursor(key, 'garbage', note, fingerprint, plan)).rejects.toThrow(InvalidCursor);
});

test('a cursor is bound to its model and to its request', async () => {
  const cursor = await encodeCursor(key, note, fingerprint, plan, 'n7');
  await expect(decodeCursor(key, cursor, other, fingerprint, plan)).rejects.toThrow('The cursor belongs to another model than other');
  await expect(decodeCursor(key, cursor, note, queryFingerprint({ done: true }, undefined), plan)).rejects.toThrow(/issued for another request/);
});

describe('a signed position this query could not have stopped at does not fit', () => {
  const doesNotFit = 'The cursor does not fit this query';
  test.each([
    ['an id position on an index read', { sk: 'n7' }, byTitle],
    ['an index position on a read by id', { g2sk: indexSortKey('t', 'n7') }, plan],
    ['a position under another index', { g1sk: indexSortKey(3, 'n7') }, byTitle],
    ['an empty id', { sk: '' }, plan],
    ['two attributes', { sk: 'n7', pk: 'note#0' }, plan],
    ['no attribute', {}, plan],
    ['an index key without its id', { g2sk: `"t\u0000` }, byTitle],
    ['an index key without its value', { g2sk: '\u0000n7' }, byTitle],
    ['an index key with no value end at all', { g2sk: '"t' }, byTitle],
    ['a number where a key goes', { sk: 7 }, plan],
  ])('%s', async (_, k, against) => {
    const cursor = signed({ m: 'note', q: fingerprint, k });
    await expect(decodeCursor(key, cursor, note, fingerprint, against)).rejects.toThrow(doesNotFit);
  });
});

test('a cursor of the earlier per-shard format is refused with a clear message, not read as a position', async () => {
  const old = signed({ m: 'note', q: fingerprint, p: [{ pk: 'note#0', sk: 'a' }, null] });
  await expect(decodeCursor(key, old, note, fingerprint, plan)).rejects.toThrow(/earlier version of the service.*list again without a cursor/);
});

test('a resume cursor goes on after the record it names, and is not a list cursor', async () => {
  const resume = await encodeResumeCursor(key, note, fingerprint, { after: 'n7', operation: 'op-1' });
  expect(await decodeResumeCursor(key, resume, note, fingerprint)).toEqual({ after: 'n7', operation: 'op-1' });
  await expect(decodeCursor(key, resume, note, fingerprint, plan)).rejects.toThrow('The cursor does not fit this query');
  const list = await encodeCursor(key, note, fingerprint, plan, 'n7');
  await expect(decodeResumeCursor(key, list, note, fingerprint)).rejects.toThrow('The cursor does not fit this request');
});

test("every shard resumes from a key shaped like its own LastEvaluatedKey, the id's own shard from the record's key", () => {
  expect(plan.startKey(1, 'n7')).toEqual({ pk: 'note#1', sk: 'n7' });
  const after = indexSortKey('a title', 'n7');
  const home = shardOf(note, 'n7');
  expect(byTitle.startKey(home, after)).toEqual({ pk: `note#${home}`, sk: 'n7', g2pk: `note#title#${home}`, g2sk: after });
  expect(byTitle.startKey(1 - home, after)).toEqual({ pk: `note#${1 - home}`, sk: 'n7', g2pk: `note#title#${1 - home}`, g2sk: after });
});

test('a resume cursor issued before bulk operations were named still resumes, as an operation of its own', async () => {
  const older = signed({ m: note.name, q: fingerprint, a: 'n7' });
  expect(await decodeResumeCursor(key, older, note, fingerprint)).toEqual({ after: 'n7' });
});

test("cursors are signed with the caller's key: another key, or none, refuses them", async () => {
  const cursor = await encodeCursor(key, note, fingerprint, plan, 'n7');
  expect(cursor.split('.')[1]).toBe(createHmac('sha256', KEY).update(cursor.split('.')[0]).digest('base64url'));
  await expect(decodeCursor(async () => 'another key', cursor, note, fingerprint, plan)).rejects.toThrow(InvalidCursor);
  await expect(decodeCursor(PROCESS_CURSOR_KEY, cursor, note, fingerprint, plan)).rejects.toThrow(InvalidCursor);
});
