import { decodeResumeCursor, encodeResumeCursor } from '../../../../shared/store/cursor/cursor';
import { configureCursorKey, cursorKey, PROCESS_CURSOR_KEY } from '../../../../shared/store/cursor/key';
import { InvalidCursor } from '../../../../shared/store/errors';
import { noteModel } from '../../../support/models';

const note = noteModel('note', 1);

test("until configured, the key is no key of the caller's: cursors of this process only", async () => {
  expect(await cursorKey()).toBeUndefined();
  const cursor = await encodeResumeCursor(cursorKey, note, 'fp', { after: 'a' });
  expect(await decodeResumeCursor(PROCESS_CURSOR_KEY, cursor, note, 'fp')).toEqual({ after: 'a' });
});

test('once configured, every cursor is signed and checked with the configured key, asked at each use', async () => {
  let asked = 0;
  configureCursorKey(async () => {
    asked += 1;
    return 'configured-secret';
  });
  expect(asked).toBe(0);
  const cursor = await encodeResumeCursor(cursorKey, note, 'fp', { after: 'b' });
  expect(await decodeResumeCursor(async () => 'configured-secret', cursor, note, 'fp')).toEqual({ after: 'b' });
  await expect(decodeResumeCursor(PROCESS_CURSOR_KEY, cursor, note, 'fp')).rejects.toThrow(InvalidCursor);
  expect(await decodeResumeCursor(cursorKey, cursor, note, 'fp')).toEqual({ after: 'b' });
  expect(asked).toBe(2);
});
