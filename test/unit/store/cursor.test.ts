import { decodeCursor, decodeResumeCursor, encodeCursor, encodeResumeCursor, queryFingerprint } from '../../../shared/store/cursor';
import { InvalidCursor } from '../../../shared/store/errors';
import { parseFilter } from '../../../shared/store/filter/parse';
import { partitionKey, shardOf } from '../../../shared/store/keys';
import { ID_ORDER, parseOrder, planAccess } from '../../../shared/store/plan';
import { noteModel } from '../../support/models';

const note = noteModel('note', 2);
const other = noteModel('other', 2);
const plan = planAccess(note, parseFilter(note, {}), ID_ORDER);
const fingerprint = queryFingerprint({}, undefined);

/** An id that lands in the given shard, and the position of a page that stopped at it. */
const idIn = (shard: number) => ['a', 'b', 'c', 'd', 'e', 'f'].find((id) => shardOf(note, id) === shard)!;
const stoppedAt = (shard: number) => ({ pk: partitionKey(note, shard), sk: idIn(shard) });

/** The payload of a cursor, re-signed by no one: what a caller who edits it sends. */
function edited(cursor: string, change: (payload: Record<string, unknown>) => void): string {
  const [payload, mac] = cursor.split('.');
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  change(decoded);
  return `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${mac}`;
}

test('a cursor gives back the positions it was made of: a key, the start, or an exhausted shard', async () => {
  const cursor = (await encodeCursor(note, fingerprint, [stoppedAt(0), null]))!;
  expect(await decodeCursor(cursor, note, fingerprint, plan)).toEqual([stoppedAt(0), null]);
  const fromStart = (await encodeCursor(note, fingerprint, [undefined, stoppedAt(1)]))!;
  expect(await decodeCursor(fromStart, note, fingerprint, plan)).toEqual([undefined, stoppedAt(1)]);
});

test('no cursor once every shard is exhausted', async () => {
  expect(await encodeCursor(note, fingerprint, [null, null])).toBeNull();
});

test("an edited payload, a cut signature or extra parts are not this service's cursor", async () => {
  const cursor = (await encodeCursor(note, fingerprint, [stoppedAt(0), null]))!;
  const refused = /not one this service issued/;
  await expect(
    decodeCursor(
      edited(cursor, (p) => {
        (p.p as unknown[])[1] = {};
      }),
      note,
      fingerprint,
      plan,
    ),
  ).rejects.toThrow(refused);
  await expect(decodeCursor(cursor.slice(0, -2), note, fingerprint, plan)).rejects.toThrow(refused);
  await expect(decodeCursor(`${cursor}.x`, note, fingerprint, plan)).rejects.toThrow(refused);
  await expect(decodeCursor('garbage', note, fingerprint, plan)).rejects.toThrow(InvalidCursor);
});

test('a cursor is bound to its model and to its request', async () => {
  const cursor = (await encodeCursor(note, fingerprint, [stoppedAt(0), null]))!;
  await expect(decodeCursor(cursor, other, fingerprint, plan)).rejects.toThrow('The cursor belongs to another model than other');
  await expect(decodeCursor(cursor, note, queryFingerprint({ done: true }, undefined), plan)).rejects.toThrow(/issued for another request/);
});

test('a position this query could not have stopped at does not fit', async () => {
  const wrongShard = (await encodeCursor(note, fingerprint, [stoppedAt(1), null]))!;
  await expect(decodeCursor(wrongShard, note, fingerprint, plan)).rejects.toThrow('The cursor does not fit this query');
  const byTitle = planAccess(note, parseFilter(note, {}), parseOrder(note, 'title'));
  const baseKeysOnly = (await encodeCursor(note, fingerprint, [stoppedAt(0), null]))!;
  await expect(decodeCursor(baseKeysOnly, note, fingerprint, byTitle)).rejects.toThrow('The cursor does not fit this query');
});

test('a resume cursor goes on after the record it names, and is not a list cursor', async () => {
  const resume = await encodeResumeCursor(note, fingerprint, { after: 'n7', operation: 'op-1' });
  expect(await decodeResumeCursor(resume, note, fingerprint)).toEqual({ after: 'n7', operation: 'op-1' });
  await expect(decodeCursor(resume, note, fingerprint, plan)).rejects.toThrow('The cursor does not fit this query');
  const list = (await encodeCursor(note, fingerprint, [stoppedAt(0), null]))!;
  await expect(decodeResumeCursor(list, note, fingerprint)).rejects.toThrow('The cursor does not fit this request');
});

test('a resume cursor issued before bulk operations were named still resumes, as an operation of its own', async () => {
  const { createHmac } = await import('node:crypto');
  process.env.CURSOR_SECRET = 'unit-cursor-key';
  const payload = Buffer.from(JSON.stringify({ m: note.name, q: fingerprint, a: 'n7' })).toString('base64url');
  const older = `${payload}.${createHmac('sha256', 'unit-cursor-key').update(payload).digest('base64url')}`;
  expect(await decodeResumeCursor(older, note, fingerprint)).toEqual({ after: 'n7' });
  delete process.env.CURSOR_SECRET;
});
