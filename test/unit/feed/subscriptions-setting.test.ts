import { currentSubscriptions } from '../../../shared/feed/subscriptions-setting';

// What the feed's functions match against: the setting's text, checked once per text.
const hook = { name: 'orders', models: ['reaction'], url: 'https://hooks.example.com/in', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };

afterEach(() => {
  delete process.env.SUBSCRIPTIONS;
});

test('unset is no subscription; a text is checked once, and again only when it changes', async () => {
  expect(await currentSubscriptions()).toEqual([]);
  process.env.SUBSCRIPTIONS = JSON.stringify([hook]);
  const first = await currentSubscriptions();
  expect(first.map((s) => s.name)).toEqual(['orders']);
  expect(await currentSubscriptions()).toBe(first);
  process.env.SUBSCRIPTIONS = JSON.stringify([hook, { name: 'to-bus', models: ['reaction'], bus: 'default' }]);
  expect((await currentSubscriptions()).map((s) => s.name)).toEqual(['orders', 'to-bus']);
});

test('a text that fails the check fails each call, naming the entry, never the secret', async () => {
  process.env.SUBSCRIPTIONS = JSON.stringify([{ ...hook, models: ['nope'] }]);
  await expect(currentSubscriptions()).rejects.toThrow(/SUBSCRIPTIONS\[0\]\.models\[0\]: no model nope/);
  await expect(currentSubscriptions()).rejects.not.toThrow(/whsec_/);
});
