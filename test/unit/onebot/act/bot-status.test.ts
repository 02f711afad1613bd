import type { OneBotEvent } from '../../../../shared/onebot/event';
import { botHealthOf } from '../../../../shared/health/bots';
import { botValues } from '../../../../shared/onebot/act/bot-status';

const AT = '2024-01-01T00:00:00.000Z';
const meta = (event: Record<string, unknown>) => ({ post_type: 'meta_event', ...event }) as OneBotEvent;

test('a heartbeat gives online, good, interval and its time; odd values are left out', () => {
  expect(botValues(meta({ meta_event_type: 'heartbeat', status: { online: true, good: false, stat: {} }, interval: 5000 }), AT)).toEqual({
    online: true,
    good: false,
    interval_ms: 5000,
    status: { online: true, good: false, stat: {} },
    last_heartbeat: AT,
    last_event_at: AT,
  });
  expect(botValues(meta({ meta_event_type: 'heartbeat', status: 'up', interval: -1 }), AT)).toEqual({ last_heartbeat: AT, last_event_at: AT });
});

test.each([
  ['enable', true],
  ['connect', true],
  ['disable', false],
  ['other', undefined],
])('lifecycle %s: online %s', (sub_type, online) => {
  expect(botValues(meta({ meta_event_type: 'lifecycle', sub_type }), AT)).toEqual({
    lifecycle: sub_type,
    ...(online === undefined ? {} : { online }),
    last_event_at: AT,
  });
});

test('other events say nothing about the bot', () => {
  expect(botValues({ post_type: 'notice', notice_type: 'heartbeat' } as OneBotEvent, AT)).toBeUndefined();
  expect(botValues(meta({ meta_event_type: 'other' }), AT)).toBeUndefined();
});

test('overdue after three intervals without a heartbeat, never before the first one or after disable', () => {
  const last = Date.parse(AT);
  const bot = { self_id: 1, online: true, good: true, interval_ms: 5000, last_heartbeat: AT };
  expect(botHealthOf(bot, last + 15_000).overdue).toBe(false);
  expect(botHealthOf(bot, last + 15_001)).toEqual({ self_id: 1, online: true, good: true, interval_ms: 5000, last_heartbeat: AT, overdue: true });
  expect(botHealthOf({ ...bot, lifecycle: 'disable' }, last + 60_000).overdue).toBe(false);
  expect(botHealthOf({ self_id: 2, lifecycle: 'enable', online: true }, last + 60_000)).toEqual({
    self_id: 2,
    online: true,
    good: null,
    interval_ms: null,
    last_heartbeat: null,
    overdue: false,
  });
});
