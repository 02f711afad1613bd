import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Change } from '../../../shared/feed/change';
import { checkSubscriptions, matches, SubscriptionsInvalid } from '../../../shared/feed/check-subscriptions';
import { MATCH_ALL } from '../../../shared/store/filter/ast';
import { fuzzed } from '../../support/fuzz';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const webhook = (extra: Record<string, unknown> = {}) => ({ name: 'hook', models: ['reaction'], url: 'https://example.test/hook', secret: SECRET, ...extra });

async function problemsOf(entries: unknown): Promise<string[]> {
  try {
    await checkSubscriptions(typeof entries === 'string' ? entries : JSON.stringify(entries));
  } catch (error) {
    if (error instanceof SubscriptionsInvalid) return [...error.problems];
    throw error;
  }
  return [];
}

test('unset or blank is no subscription; valid entries come back with a filter parsed per model', async () => {
  expect(await checkSubscriptions(undefined)).toEqual([]);
  expect(await checkSubscriptions('  ')).toEqual([]);
  const [hook, bus] = await checkSubscriptions(
    JSON.stringify([webhook({ filter: { content: 'heart' }, ops: ['create'] }), { name: 'all-bots', models: ['onebot_event', 'onebot_bot'], bus: 'default' }]),
  );
  expect(hook).toMatchObject({ name: 'hook', ops: ['create'], filterOf: { reaction: { kind: 'compare', field: 'content', op: 'eq', operands: ['heart'] } } });
  expect(bus.filterOf).toEqual({ onebot_event: MATCH_ALL, onebot_bot: MATCH_ALL });
});

test('every problem is named by the entry’s position and field', async () => {
  expect(
    await problemsOf([
      webhook(),
      { name: 'Bad Name', models: ['reaction', 'nope'], url: 'ftp://x', secret: 'whsec_short', extra: 1 },
      { name: 'neither', models: ['reaction'] },
      webhook({ name: 'filtered', models: ['reaction', 'onebot_bot'], filter: { content: 'heart' } }),
    ]),
  ).toEqual([
    'SUBSCRIPTIONS[1].name: lower-case letters, digits, _ and -, up to 63',
    'SUBSCRIPTIONS[1].url: Invalid URL',
    'SUBSCRIPTIONS[1].secret: whsec_ followed by base64 of 24-64 bytes',
    'SUBSCRIPTIONS[1]: Unrecognized key: "extra"',
    'SUBSCRIPTIONS[2]: a webhook takes url and secret; an EventBridge subscription takes bus',
  ]);
  // Models and filters are checked once every entry has its shape.
  const problems = await problemsOf([
    webhook({ models: ['reaction', 'nope'] }),
    webhook({ name: 'f', models: ['reaction', 'onebot_bot'], filter: { content: { $gt: 1 } } }),
  ]);
  expect(problems[0]).toMatch(/^SUBSCRIPTIONS\[0\]\.models\[1\]: no model nope in the catalog \(reaction, /);
  expect(problems[1]).toMatch(/^SUBSCRIPTIONS\[1\]\.filter for model reaction: Invalid filter at filter\.content\.\$gt: content holds a string, not a number/);
  expect(problems[2]).toBe('SUBSCRIPTIONS[1].filter for model onebot_bot: Model onebot_bot has no field content (at filter.content)');
  expect(await problemsOf([webhook(), webhook()])).toEqual(['SUBSCRIPTIONS: subscription names must be unique']);
});

test('no problem ever shows a secret, or any part of one', async () => {
  const base64 = fc.uint8Array({ minLength: 8, maxLength: 70 }).map((bytes) => Buffer.from(bytes).toString('base64'));
  const secret = fc.oneof(
    base64.map((b) => `whsec_${b}`),
    base64.map((b) => `whsek_${b}`),
    base64.map((b) => `whsec_${b}!`),
  );
  const broken = fc.constantFrom('json', 'model', 'filter', 'url', 'array', 'none');
  await fc.assert(
    fc.asyncProperty(secret, secret, broken, async (one, two, how) => {
      const entry = {
        name: 'x',
        models: [how === 'model' ? 'nope' : 'reaction'],
        url: how === 'url' ? 'mailto:x' : 'https://h.test',
        secret: how === 'array' ? [one, two] : one,
      };
      const entries = [{ ...entry, ...(how === 'filter' ? { filter: { user_id: 'text' } } : {}) }];
      // A stray character right after the secret: JSON.parse's own message would quote the text around it.
      const text = how === 'json' ? JSON.stringify(entries).replace(`${one}"`, `${one}"x`) : JSON.stringify(entries);
      const shown = (await problemsOf(text)).join('\n');
      for (const s of [one, two]) {
        const part = s.slice('whsec_'.length);
        for (let i = 0; i + 8 <= part.length; i += 4) expect(shown).not.toContain(part.slice(i, i + 8));
      }
    }),
    fuzzed(300, 60),
  );
  expect(await problemsOf(`[{"name": "x", "secret": "${SECRET}"`)).toEqual([
    'is not valid JSON (a JSON array of subscriptions; the text is not shown, as it holds secrets)',
  ]);
});

describe('matches', () => {
  const change = (op: Change['op'], content: { before?: string; after?: string }, model = 'reaction'): Change => ({
    change_id: 'c',
    model,
    id: 'r1',
    op,
    version: 2,
    time: '2026-11-27T08:00:00.000Z',
    ...(content.before === undefined ? {} : { before: { id: 'r1', user_id: 1, content: content.before, _version: 1 } }),
    ...(content.after === undefined ? {} : { after: { id: 'r1', user_id: 1, content: content.after, _version: 2 } }),
  });

  test('a change of a model the subscription names, of an op it takes, whose record its filter matches', async () => {
    const [hearts, creates, any] = await checkSubscriptions(
      JSON.stringify([
        webhook({ name: 'hearts', filter: { content: 'heart' } }),
        webhook({ name: 'creates', ops: ['create'] }),
        webhook({ name: 'any', models: ['onebot_bot', 'reaction'] }),
      ]),
    );
    // The filter reads `after`: an update away from a heart is not a heart's change, one to a heart is.
    expect(matches(hearts, change('update', { before: 'heart', after: 'rocket' }))).toBe(false);
    expect(matches(hearts, change('update', { before: 'rocket', after: 'heart' }))).toBe(true);
    expect(matches(hearts, change('create', { after: 'heart' }))).toBe(true);
    // A delete has only `before`.
    expect(matches(hearts, change('delete', { before: 'heart' }))).toBe(true);
    expect(matches(hearts, change('delete', { before: 'rocket' }))).toBe(false);
    expect(matches(creates, change('create', { after: 'x' }))).toBe(true);
    expect(matches(creates, change('update', { before: 'x', after: 'y' }))).toBe(false);
    expect(matches(creates, change('delete', { before: 'x' }))).toBe(false);
    expect(matches(any, change('delete', { before: 'x' }))).toBe(true);
    expect(matches(any, change('create', { after: 'x' }, 'onebot_event'))).toBe(false);
  });
});
