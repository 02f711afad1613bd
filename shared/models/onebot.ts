import * as zm from '../zod';
import { ONEBOT_LIMITS } from '../limits';
import { defineModel } from './define';
import { patternProblem } from './pattern-check';

// Like every model file, this one only defines: loading it runs nothing and reaches nothing of
// the receiver (shared/onebot) nor the regex engine (a regex rule's pattern is checked through
// pattern-check.ts by checkAgainst), so a function serving these models loads neither.

// zod/mini (shared/zod.ts), like every model: a record function asked for a OneBot model loads
// these, and the full zod API alone costs more to load than the whole allowance of issue 14.
// `opt(schema, text)` is the full API's `schema.optional().describe(text)`.
const opt = <T extends zm.core.SomeType>(schema: T, description?: string) => {
  const optional = zm.optional(schema);
  return description === undefined ? optional : optional.check(zm.describe(description));
};
const withDefault = <T extends zm.core.SomeType>(schema: T, value: zm.core.util.NoUndefined<zm.output<T>>, description?: string) => {
  const defaulted = zm._default(schema, value);
  return description === undefined ? defaulted : defaulted.check(zm.describe(description));
};

/** OneBot ids: int64 numbers (stored digit for digit, even past 2^53) or strings, as sent. */
const oneBotId = zm.union([zm.number(), zm.string()]);
/**
 * A field holding a JSON object, whatever its keys: `{"type":"object"}` in the models endpoint and
 * OpenAPI. Not the request body's object check (shared/api/requests/common.ts), a different fact
 * (docs/decisions.md, "An object field is not a request's object").
 */
const objectField = zm.record(zm.string(), zm.unknown());

/** What was done about an event a rule applied to; README "What is stored". */
const done = zm.strictObject({
  via: zm
    .enum(['quick_operation', 'api', 'none'])
    .check(zm.describe("quick_operation: answered to the sender; api: called the bot's HTTP API; none: nothing could be done")),
  action: opt(zm.string(), 'api: the OneBot action called (send_msg, set_friend_add_request, set_group_add_request)'),
  params: opt(objectField, 'api: the parameters sent'),
  ok: opt(zm.boolean(), 'api: the bot answered status ok (retcode 0); absent while the call is under way'),
  http_status: opt(zm.number(), "api: the HTTP status of the bot's answer"),
  retcode: opt(zm.number(), "api: the bot's retcode"),
  error: opt(zm.string(), 'api: why the call failed (unreachable, timeout, refused)'),
  reason: opt(zm.string(), 'none: why (sender_ignores_answers, received_while_database_unreachable, too_old)'),
});

export const onebotEvent = defineModel({
  name: 'onebot_event',
  description: 'A OneBot 11 event as received by the HTTP POST receiver; the id is derived from the bot and the whole event (docs/onebot.md, "Duplicates")',
  schema: zm.strictObject({
    self_id: oneBotId.check(zm.describe("The bot account (the body's self_id, else the X-Self-ID header)")),
    post_type: zm.string().check(zm.describe('message, notice, request, meta_event, or what the sender invented (message_sent)')),
    detail_type: opt(zm.string(), 'message_type, notice_type, request_type or meta_event_type'),
    sub_type: opt(zm.string()),
    time: opt(zm.number(), "Unix seconds, by the bot's clock"),
    user_id: opt(oneBotId),
    group_id: opt(oneBotId),
    message_id: opt(oneBotId),
    received_at: opt(
      zm.iso.datetime(),
      "When the delivery arrived (API Gateway's request time, service clock); earlier than _created_at only for events kept while the database was unreachable",
    ),
    delivery_id: opt(zm.string(), 'The delivery that stored it, given at receipt: a delivery kept and replayed after a lost answer finds its record by it'),
    answered_late: opt(
      zm.literal(true),
      "Its answer was begun 5 s or more after it arrived (go-cqhttp's timeout): only then is an identical go-cqhttp delivery its re-send",
    ),
    sender: opt(zm.enum(['go-cqhttp', 'LLOneBot', 'Lagrange.OneBot', 'other']), 'The implementation, as told by its headers'),
    event: opt(objectField, 'The whole event as received, numbers exact; absent when event_ref holds it'),
    event_ref: opt(
      zm.strictObject({ location: zm.string(), bytes: zm.number(), sha256: zm.string() }),
      'An event too large for a record, kept whole elsewhere: s3://bucket/key in AWS, file:<path under DATA_DIR> locally',
    ),
    answer: opt(objectField, 'The quick operation answered (absent: 200 {}); a re-send of this event gets the same'),
    rule_id: opt(zm.string(), 'The onebot_rule that applied'),
    done: opt(done, 'What was done about the rule: quick operation, API call with its result, or nothing and why'),
    expires_at: opt(
      zm.int(),
      'Epoch seconds from which the event is expired and gone (the ttl field): heartbeat and lifecycle events get one from ONEBOT_META_RETENTION_DAYS, other events none',
    ),
  }),
  indexed: ['time', 'user_id', 'group_id'],
  shards: 4,
  access: 'read_only',
  // Heartbeats alone are ~17,000 events a day per bot at 5 s; onebot_bot keeps the latest status.
  // The receiver sets their expiry (shared/onebot/store/retention.ts), which every model's ttl then serves.
  ttl: 'expires_at',
});

export const onebotBot = defineModel({
  name: 'onebot_bot',
  description: "One bot account's status from its lifecycle and heartbeat events; the id is its self_id",
  schema: zm.strictObject({
    self_id: oneBotId,
    online: opt(zm.boolean(), "From the last heartbeat's status, or lifecycle enable/connect (true) and disable (false)"),
    good: opt(zm.boolean(), "The last heartbeat's status.good"),
    interval_ms: opt(zm.number(), 'The heartbeat interval the bot announced'),
    last_heartbeat: opt(zm.iso.datetime(), 'When the last heartbeat was received (service clock)'),
    lifecycle: opt(zm.string(), 'sub_type of the last lifecycle event: enable, disable, connect'),
    status: opt(objectField, "The last heartbeat's status object as sent"),
    last_event_at: zm.iso.datetime().check(zm.describe('When the last lifecycle or heartbeat event was received')),
  }),
  access: 'read_only',
});

const segment = zm.strictObject({ type: zm.string().check(zm.minLength(1)), data: objectField });

export const onebotRule = defineModel({
  name: 'onebot_rule',
  description: 'An auto-reply rule for message events, or an approve/reject rule for friend and group requests',
  schema: zm
    .strictObject({
      match: opt(
        zm.enum(['exact', 'prefix', 'keyword', 'regex']),
        "How pattern is compared with the message's plain text (request rules: with the request comment)",
      ),
      pattern: opt(zm.string().check(zm.minLength(1), zm.maxLength(ONEBOT_LIMITS.maxPatternLength))),
      reply: opt(
        zm.union([
          zm.string().check(zm.minLength(1), zm.maxLength(ONEBOT_LIMITS.maxReplyLength)),
          zm.array(segment).check(zm.minLength(1), zm.maxLength(ONEBOT_LIMITS.maxReplySegments)),
        ]),
        'CQ-code text (sent as written unless auto_escape) or a segment array',
      ),
      auto_escape: withDefault(zm.boolean(), false, 'true: the bot sends a string reply as plain text, CQ codes not parsed'),
      at_sender: withDefault(zm.boolean(), false, 'Group replies mention the sender'),
      message_type: opt(zm.enum(['private', 'group']), 'Only messages of this type'),
      group_id: opt(oneBotId, 'Only events from this group'),
      user_id: opt(oneBotId, 'Only events from this user'),
      enabled: withDefault(zm.boolean(), true),
      priority: withDefault(zm.int(), 0, 'Among matching rules the highest wins; ties go to the oldest id'),
      request_type: opt(zm.enum(['friend', 'group']), 'Makes this a request rule'),
      approve: opt(zm.boolean(), 'Request rules: approve or reject'),
      remark: opt(zm.string().check(zm.maxLength(ONEBOT_LIMITS.maxPatternLength)), 'Friend requests: remark for the approved friend'),
      reason: opt(zm.string().check(zm.maxLength(ONEBOT_LIMITS.maxPatternLength)), 'Group requests: the reason given when rejecting'),
    })
    .check(
      zm.superRefine((rule, ctx) => {
        const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
        if ((rule.match === undefined) !== (rule.pattern === undefined)) problem(rule.match ? 'pattern' : 'match', 'match and pattern go together');
        if (rule.match === 'regex' && rule.pattern !== undefined) {
          const refused = patternProblem(rule.pattern);
          if (refused) problem('pattern', refused);
        }
        if (rule.request_type === undefined) {
          if (rule.match === undefined) problem('match', 'a message rule needs match and pattern');
          if (rule.reply === undefined) problem('reply', 'a message rule needs a reply');
          for (const field of ['approve', 'remark', 'reason'] as const)
            if (rule[field] !== undefined) problem(field, `${field} belongs to request rules (set request_type)`);
          return;
        }
        if (rule.approve === undefined) problem('approve', 'a request rule needs approve: true or false');
        for (const field of ['reply', 'message_type'] as const) if (rule[field] !== undefined) problem(field, `${field} belongs to message rules`);
        if (rule.remark !== undefined && rule.request_type !== 'friend') problem('remark', 'remark applies to friend requests');
        if (rule.reason !== undefined && rule.request_type !== 'group') problem('reason', 'reason applies to group requests');
      }),
    ),
});
