import { onebotRule } from '../../../../shared/models/onebot';
import { checkAgainst } from '../../../../shared/models/validate';
import type { OneBotEvent } from '../../../../shared/onebot/event';
import { ruleAnswer, type Rule } from '../../../../shared/onebot/decide/rules';

let n = 0;
/** A rule as stored: the model's defaults applied, ids in creation order. */
// Through checkAgainst, as the record API validates a rule: it runs a regex pattern on RE2.
const rule = async (data: Record<string, unknown>): Promise<Rule> => {
  const { value, details } = await checkAgainst(onebotRule.schema, data, []);
  if (!value) throw new Error(JSON.stringify(details));
  return { ...value, id: `r${n++}` } as Rule;
};
/** Rules made one after the other, so their ids are in the order given. */
const rulesOf = async (...data: Array<Record<string, unknown>>): Promise<Rule[]> => {
  const rules: Rule[] = [];
  for (const d of data) rules.push(await rule(d));
  return rules;
};
const msg = (message_type: string, message: unknown, extra: Record<string, unknown> = {}): OneBotEvent =>
  ({ post_type: 'message', message_type, message, user_id: 1, ...(message_type === 'group' ? { group_id: 2 } : {}), ...extra }) as OneBotEvent;

test.each([
  ['exact', 'hi', 'hi', true],
  ['exact', 'hi', 'hi!', false],
  ['exact', 'hi', ' hi ', true],
  ['exact', 'h i', 'h  i', false],
  ['prefix', '/go', '/go home', true],
  ['prefix', '/go', 'x/go', false],
  ['keyword', 'cat', 'concatenate', true],
  ['keyword', 'Cat', 'cat', false],
  ['regex', '^\\d{3}$', '123', true],
  ['regex', '^\\d{3}$', '1234', false],
  // What the person typed: the mention and the space after it are gone.
  ['regex', '^/roll \\d+$', '[CQ:at,qq=10001] /roll 20', true],
  ['exact', 'a b', 'a [CQ:face,id=1]  b', true],
])('%s %j on %j: %s', async (match, pattern, text, matches) => {
  const answer = await ruleAnswer([await rule({ match, pattern, reply: 'yes' })], msg('private', text));
  expect(answer.answer !== undefined).toBe(matches);
});

test('the highest priority wins; ties go to the first (oldest) rule; disabled rules never answer', async () => {
  const rules = await rulesOf(
    { match: 'keyword', pattern: 'a', reply: 'low', priority: -1 },
    { match: 'keyword', pattern: 'a', reply: 'first' },
    { match: 'keyword', pattern: 'a', reply: 'second' },
    { match: 'keyword', pattern: 'a', reply: 'off', priority: 9, enabled: false },
  );
  expect(await ruleAnswer(rules, msg('private', 'a'))).toEqual({ answer: { reply: 'first', auto_escape: false }, rule_id: rules[1].id });
});

test('scopes: message_type, group_id and user_id compare by digits', async () => {
  const rules = await rulesOf({ match: 'exact', pattern: 'x', reply: 'scoped', message_type: 'group', group_id: '2', user_id: 1, priority: 1 });
  expect((await ruleAnswer(rules, msg('group', 'x'))).answer).toEqual({ reply: 'scoped', auto_escape: false, at_sender: false });
  expect((await ruleAnswer(rules, msg('private', 'x'))).answer).toBeUndefined();
  expect((await ruleAnswer(rules, msg('group', 'x', { group_id: 3 }))).answer).toBeUndefined();
  expect((await ruleAnswer(rules, msg('group', 'x', { user_id: 7 }))).answer).toBeUndefined();
});

test('raw_message is used when message is missing; other message types and post types get nothing', async () => {
  const rules = await rulesOf({ match: 'exact', pattern: '[x]', reply: 'ok' });
  expect((await ruleAnswer(rules, msg('private', undefined, { raw_message: '&#91;x&#93;' }))).answer).toBeDefined();
  expect((await ruleAnswer(rules, msg('guild', '[x]'))).answer).toBeUndefined();
  expect((await ruleAnswer(rules, { ...msg('private', '&#91;x&#93;'), post_type: 'message_sent' })).answer).toBeUndefined();
});

test('request rules: remark only when approving a friend, reason only when rejecting a group', async () => {
  const friend = { post_type: 'request', request_type: 'friend', user_id: 1, comment: 'hi' } as OneBotEvent;
  const group = { post_type: 'request', request_type: 'group', sub_type: 'add', group_id: 2, user_id: 1, comment: 'hi' } as OneBotEvent;
  const answer = async (data: Record<string, unknown>, event: OneBotEvent) => (await ruleAnswer(await rulesOf(data), event)).answer;
  expect(await answer({ request_type: 'friend', approve: false, remark: 'unused' }, friend)).toEqual({ approve: false });
  expect(await answer({ request_type: 'group', approve: true, reason: 'unused' }, group)).toEqual({ approve: true });
  expect(await answer({ request_type: 'group', approve: false, reason: 'no', match: 'exact', pattern: 'hi' }, group)).toEqual({
    approve: false,
    reason: 'no',
  });
  expect(await answer({ request_type: 'group', approve: false, match: 'exact', pattern: 'bye' }, group)).toBeUndefined();
  expect(await answer({ request_type: 'friend', approve: true }, group)).toBeUndefined();
});
