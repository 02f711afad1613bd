import type { FinalizeHandlerArguments } from '@smithy/types';
import { db } from '../../shared/store/client';
import { useApi } from '../support/api';
import { spyOnLog } from '../support/log';
import { storedItems } from '../support/stored';

// The bot-status write comes after the event is stored; if DynamoDB refuses it for good, the
// delivery is still acknowledged (a 5xx would make the sender re-send a duplicate, which is
// answered the same and would never update the bot either).
const api = useApi();

beforeAll(() => {
  delete process.env.ONEBOT_SECRET;
});

test('a heartbeat whose bot-status write fails is still stored and acknowledged', async () => {
  const log = spyOnLog('error');
  const name = 'failBotWrites';
  db().middlewareStack.add(
    (next) => async (args: FinalizeHandlerArguments<any>) => {
      // Inside the SDK's stack the input is already in DynamoDB's wire shape ({S: ...}).
      const input = args.input as { Key?: { pk?: { S?: string } }; Item?: { pk?: { S?: string } } };
      const pk = (input.Key ?? input.Item)?.pk?.S;
      if (pk?.startsWith('onebot_bot#')) throw Object.assign(new Error('injected'), { name: 'InternalServerError', $fault: 'server', $metadata: {} });
      return next(args);
    },
    { step: 'deserialize', name, priority: 'high' },
  );
  try {
    const r = await api.post(
      '/onebot/v11/',
      { time: 1700000000, self_id: 777, post_type: 'meta_event', meta_event_type: 'heartbeat', status: { online: true, good: true }, interval: 5000 },
      { 'x-self-id': '777' },
    );
    expect(r.status).toBe(200);
  } finally {
    db().middlewareStack.remove(name);
  }
  const events = await storedItems({ name: 'onebot_event', shards: 4 });
  expect(events.filter((e) => (e.d as { post_type: string }).post_type === 'meta_event')).toHaveLength(1);
  expect(await storedItems({ name: 'onebot_bot', shards: 1 })).toEqual([]);
  expect(log.mock.calls.some(([line]) => String(line).includes('bot_status_failed'))).toBe(true);
  log.mockRestore();
});
