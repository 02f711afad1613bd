import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drainSpoolWith, spoolDelivery, spooled } from '../../../../shared/onebot/keep/spool';

process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'recordgate-spool-'));
const kept = (received_at: string) => ({ body: 'e30=', headers: { 'x-self-id': '10001' }, received_at, delivery_id: received_at });

test('the spool lists its deliveries in arrival order, whatever order they were kept in, and starts the drain after each', async () => {
  let started = 0;
  drainSpoolWith(() => started++);
  expect(await spooled()).toEqual([]);
  await spoolDelivery(kept('2026-01-01T00:00:02.000Z'));
  await spoolDelivery(kept('2026-01-01T00:00:01.000Z'));
  const names = await spooled();
  expect(names).toHaveLength(2);
  expect(names[0].startsWith(String(Date.parse('2026-01-01T00:00:01.000Z')).padStart(15, '0'))).toBe(true);
  expect(names.every((name) => name.endsWith('.json'))).toBe(true);
  expect(started).toBe(2);
});
