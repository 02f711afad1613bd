import { mapPool } from '../../../../shared/store/write/pool';

test("runs every input at most `concurrency` at a time, each result in its input's place, a failure as a rejection", async () => {
  let running = 0;
  let most = 0;
  const results = await mapPool([1, 2, 3, 4, 5], 2, async (n) => {
    running += 1;
    most = Math.max(most, running);
    await Promise.resolve();
    running -= 1;
    if (n === 3) throw new Error('three');
    return n * 10;
  });
  expect(most).toBe(2);
  expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([10, 20, 'three', 40, 50]);
});

test('once keepStarting says no, no input starts; the results are exactly the prefix started, each run to its end', async () => {
  let started = 0;
  const results = await mapPool(
    ['a', 'b', 'c', 'd', 'e'],
    2,
    async (s) => {
      started += 1;
      await Promise.resolve();
      return s.toUpperCase();
    },
    () => started < 3,
  );
  expect(results).toEqual([
    { status: 'fulfilled', value: 'A' },
    { status: 'fulfilled', value: 'B' },
    { status: 'fulfilled', value: 'C' },
  ]);
});

test('no inputs: no results', async () => {
  expect(await mapPool([], 4, async () => 1)).toEqual([]);
});
