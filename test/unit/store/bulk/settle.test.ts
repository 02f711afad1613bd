import type { Matched } from '../../../../shared/store/bulk/match';
import { settle } from '../../../../shared/store/bulk/settle';
import { decodeResumeCursor } from '../../../../shared/store/cursor/cursor';
import { OutcomeUnknown, PartialWrite, RecordBusy } from '../../../../shared/store/errors';
import { MATCH_ALL } from '../../../../shared/store/filter/ast';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 2);
const key = async () => 'unit-test-key';
const fingerprint = 'fp';
const matched = (ids: string[], planned?: Matched['planned'], resumed: Matched['resumed'] = { after: '', written: [] }): Matched => ({
  filter: MATCH_ALL,
  items: ids.map((id) => ({ id })),
  operation: 'op',
  resumed,
  cursorKey: key,
  ...(planned ? { planned } : {}),
});
const done = (value: boolean): PromiseSettledResult<boolean> => ({ status: 'fulfilled', value });
const failed = (reason: unknown): PromiseSettledResult<boolean> => ({ status: 'rejected', reason });
const cursorOf = (request: { filters: unknown; allow_all?: boolean; cursor?: string } = { filters: {} }) => ({ model: note, fingerprint, request });
const resumeOf = (cursor: string | null) => decodeResumeCursor(key, cursor!, note, fingerprint);

test('every record reached: changed and skipped counted, complete, no cursor', async () => {
  expect(await settle('updated', [done(true), done(false), done(true)], matched(['a', 'b', 'c']), cursorOf())).toEqual({
    updated: 2,
    matched: 3,
    skipped: 1,
    complete: true,
    next_cursor: null,
  });
});

test('a failure after a change answers what was done and a cursor that goes on after the last record reached, in this operation, naming the records past it it changed', async () => {
  const answer = await settle('updated', [done(true), failed(new RecordBusy('b')), done(true), done(false)], matched(['a', 'b', 'c', 'd']), cursorOf());
  expect(answer).toMatchObject({ updated: 2, matched: 4, skipped: 1, complete: false });
  expect(await resumeOf(answer.next_cursor)).toEqual({ after: 'a', operation: 'op', written: ['c'] });
});

test('a failure at the first record, once another changed, goes on from where this call began', async () => {
  const fresh = await settle('deleted', [failed(new RecordBusy('a')), done(true)], matched(['a', 'b']), cursorOf());
  expect(await resumeOf(fresh.next_cursor)).toEqual({ after: '', operation: 'op' });
  const resumed = await settle('deleted', [failed(new RecordBusy('b')), done(true)], matched(['b', 'c'], undefined, { after: 'a', written: [] }), cursorOf());
  expect(await resumeOf(resumed.next_cursor)).toEqual({ after: 'a', operation: 'op' });
});

test('a delete names no record past the failure: those it deleted are gone, no call resuming matches them', async () => {
  const answer = await settle('deleted', [done(true), failed(new RecordBusy('b')), done(true)], matched(['a', 'b', 'c']), cursorOf());
  expect(await resumeOf(answer.next_cursor)).toEqual({ after: 'a', operation: 'op' });
});

test('the records a resumed call was told to leave out stay named while they lie past where the next call goes on', async () => {
  const atFirst = await settle(
    'updated',
    [failed(new RecordBusy('b')), done(true)],
    matched(['b', 'd'], undefined, { after: 'a', written: ['c', 'e'] }),
    cursorOf(),
  );
  expect(await resumeOf(atFirst.next_cursor)).toEqual({ after: 'a', operation: 'op', written: ['c', 'e', 'd'] });
  const later = await settle(
    'updated',
    [done(true), failed(new RecordBusy('d'))],
    matched(['b', 'd'], undefined, { after: 'a', written: ['c', 'e'] }),
    cursorOf(),
  );
  expect(await resumeOf(later.next_cursor)).toEqual({ after: 'b', operation: 'op', written: ['c', 'e'] });
  const past = await settle(
    'updated',
    [done(true), done(true), failed(new RecordBusy('f'))],
    matched(['b', 'd', 'f'], undefined, { after: 'a', written: ['c', 'e'] }),
    cursorOf(),
  );
  expect(await resumeOf(past.next_cursor)).toEqual({ after: 'd', operation: 'op', written: ['e'] });
});

test('a cursor of a request with allow_all goes on only with allow_all', async () => {
  const answer = await settle('updated', [done(true), failed(new RecordBusy('b'))], matched(['a', 'b']), cursorOf({ filters: {}, allow_all: true }));
  expect(await resumeOf(answer.next_cursor)).toEqual({ after: 'a', operation: 'op', wide: true });
});

test('nothing changed: an error with the counts, whose cause is the first record in doubt before any other failure', async () => {
  const busy = new RecordBusy('a');
  const lost = new OutcomeUnknown('b', new Error('socket hang up'));
  const settled = settle('updated', [failed(busy), failed(lost), done(false)], matched(['a', 'b', 'c']), cursorOf());
  await expect(settled).rejects.toBeInstanceOf(PartialWrite);
  await expect(settled).rejects.toMatchObject({ cause: lost, counts: { updated: 0, matched: 3, failed: 1, unknown: 1 } });
  await expect(settle('deleted', [failed(busy)], matched(['a']), cursorOf())).rejects.toMatchObject({
    cause: busy,
    counts: { deleted: 0, matched: 1, failed: 1 },
  });
});

test('a record in doubt beside a change is counted apart as unknown, never as changed', async () => {
  const answer = await settle('updated', [done(true), failed(new OutcomeUnknown('b', new Error('lost')))], matched(['a', 'b']), cursorOf());
  expect(answer).toMatchObject({ updated: 1, unknown: 1, matched: 2, complete: false });
});

test("a keyed retry's planned records that are gone count as deleted by a delete and skipped by an update; stale ones as skipped", async () => {
  const planned = { gone: 2, stale: 1 };
  expect(await settle('deleted', [done(true)], matched(['a'], planned), cursorOf())).toMatchObject({ deleted: 3, skipped: 1, matched: 4, complete: true });
  expect(await settle('updated', [done(true)], matched(['a'], planned), cursorOf())).toMatchObject({ updated: 1, skipped: 3, matched: 4, complete: true });
});
