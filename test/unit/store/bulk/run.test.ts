import { writeEach } from '../../../../shared/store/bulk/run';
import { LIMITS } from '../../../../shared/limits';
import type { Item } from '../../../../shared/store/read/query';

const items: Item[] = Array.from({ length: 3 * LIMITS.writeConcurrency }, (_, i) => ({ id: `r${String(i).padStart(3, '0')}` }));

test('a failed write stops new ones: only the writes already in flight finish, so what ran is a prefix no longer than one round', async () => {
  const started: string[] = [];
  const results = await writeEach(items, async (item) => {
    started.push(item.id as string);
    if (item.id === 'r002') throw new Error('refused');
    // Finishes after the failure is known, so every later start is the pool's choice.
    await new Promise((resolve) => setImmediate(resolve));
    return true;
  });
  expect(started).toEqual(items.slice(0, LIMITS.writeConcurrency).map((item) => item.id));
  expect(results).toHaveLength(LIMITS.writeConcurrency);
  expect(results.map((r) => r.status)).toEqual(items.slice(0, LIMITS.writeConcurrency).map((item) => (item.id === 'r002' ? 'rejected' : 'fulfilled')));
});

test('without a failure every record is written, in id order of start', async () => {
  const started: string[] = [];
  const results = await writeEach(items, async (item) => {
    started.push(item.id as string);
    await new Promise((resolve) => setImmediate(resolve));
    return true;
  });
  expect(started).toEqual(items.map((item) => item.id));
  expect(results.every((r) => r.status === 'fulfilled' && r.value)).toBe(true);
});
