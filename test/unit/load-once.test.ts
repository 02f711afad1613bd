import { loadOnce } from '../../shared/load-once';

test('loads on the first call only, and every caller gets what it loaded', async () => {
  let loads = 0;
  const load = loadOnce(async () => ({ n: ++loads }));
  expect(loads).toBe(0);
  const [a, b] = await Promise.all([load(), load()]);
  expect(await load()).toBe(a);
  expect(b).toBe(a);
  expect(loads).toBe(1);
});

test('a failed load reaches its caller and is tried again by the next call', async () => {
  let loads = 0;
  const load = loadOnce(async () => {
    loads += 1;
    if (loads === 1) throw new Error('chunk missing');
    return 'engine';
  });
  await expect(load()).rejects.toThrow('chunk missing');
  await expect(load()).resolves.toBe('engine');
  await expect(load()).resolves.toBe('engine');
  expect(loads).toBe(2);
});
