import * as z from 'zod';
import { ONEBOT_LIMITS } from '../limits';
import { metaEventRetentionSeconds } from '../onebot/settings';
import { linearRegex } from '../onebot/safe-regex';
import { defineModel } from './define';

/** OneBot ids: int64 numbers (stored digit for digit, even past 2^53) or strings, as sent. */
const oneBotId = z.union([z.number(), z.string()]);
const jsonObject = z.record(z.string(), z.unknown());

/** What was done about an event a rule applied to; README "What is stored". */
const done = z.strictObject({
  via: z.enum(['quick_operation', 'api', 'none']).describe('quick_operation: answered to the sender; api: called the bot\'s HTTP API; none: nothing could be done'),
  action: z.string().optional().describe('api: the OneBot action called (send_msg, set_friend_add_request, set_group_add_request)'),
  params: jsonObject.optional().describe('api: the parameters sent'),
  ok: z.boolean().optional().describe('api: the bot answered status ok (retcode 0); absent while the call is under way'),
  http_status: z.number().optional().describe('api: the HTTP status of the bot\'s answer'),
  retcode: z.number().optional().describe('api: the bot\'s retcode'),
  error: z.string().optional().describe('api: why the call failed (unreachable, timeout, refused)'),
  reason: z.string().optional().describe('none: why (sender_ignores_answers, received_while_database_unreachable)'),
});

export const onebotEvent = defineModel({
  name: 'onebot_event',
  description: 'A OneBot 11 event as received by the HTTP POST receiver; the id is derived from its identity (README "Duplicates")',
  schema: z.strictObject({
    self_id: oneBotId.describe('The bot account (the body\'s self_id, else the X-Self-ID header)'),
    post_type: z.string().describe('message, notice, request, meta_event, or what the sender invented (message_sent)'),
    detail_type: z.string().optional().describe('message_type, notice_type, request_type or meta_event_type'),
    sub_type: z.string().optional(),
    time: z.number().optional().describe('Unix seconds, by the bot\'s clock'),
    user_id: oneBotId.optional(),
    group_id: oneBotId.optional(),
    message_id: oneBotId.optional(),
    received_at: z.iso.datetime().optional().describe('When the receiver accepted the delivery (service clock); earlier than _created_at only for events kept while the database was unreachable'),
    sender: z.enum(['go-cqhttp', 'Lagrange.OneBot', 'other']).optional().describe('The implementation, as told by its headers'),
    event: jsonObject.optional().describe('The whole event as received, numbers exact; absent when event_ref holds it'),
    event_ref: z.strictObject({ location: z.string(), bytes: z.number(), sha256: z.string() }).optional()
      .describe('An event too large for a record, kept whole elsewhere: s3://bucket/key in AWS, file:<path under DATA_DIR> locally'),
    answer: jsonObject.optional().describe('The quick operation answered (absent: 200 {}); a re-delivery gets the same'),
    rule_id: z.string().optional().describe('The onebot_rule that applied'),
    done: done.optional().describe('What was done about the rule: quick operation, API call with its result, or nothing and why'),
  }),
  indexed: ['time', 'user_id', 'group_id'],
  shards: 4,
  access: 'read_only',
  // Heartbeats alone are ~17,000 events a day per bot at 5 s; onebot_bot keeps the latest status.
  retention: (data) => (data.post_type === 'meta_event' ? metaEventRetentionSeconds() : undefined),
});

export const onebotBot = defineModel({
  name: 'onebot_bot',
  description: 'One bot account\'s status from its lifecycle and heartbeat events; the id is its self_id',
  schema: z.strictObject({
    self_id: oneBotId,
    online: z.boolean().optional().describe('From the last heartbeat\'s status, or lifecycle enable/connect (true) and disable (false)'),
    good: z.boolean().optional().describe('The last heartbeat\'s status.good'),
    interval_ms: z.number().optional().describe('The heartbeat interval the bot announced'),
    last_heartbeat: z.iso.datetime().optional().describe('When the last heartbeat was received (service clock)'),
    lifecycle: z.string().optional().describe('sub_type of the last lifecycle event: enable, disable, connect'),
    status: jsonObject.optional().describe('The last heartbeat\'s status object as sent'),
    last_event_at: z.iso.datetime().describe('When the last lifecycle or heartbeat event was received'),
  }),
  access: 'read_only',
});

const segment = z.strictObject({ type: z.string().min(1), data: jsonObject });

export const onebotRule = defineModel({
  name: 'onebot_rule',
  description: 'An auto-reply rule for message events, or an approve/reject rule for friend and group requests',
  schema: z.strictObject({
    match: z.enum(['exact', 'prefix', 'keyword', 'regex']).optional()
      .describe('How pattern is compared with the message\'s plain text (request rules: with the request comment)'),
    pattern: z.string().min(1).max(ONEBOT_LIMITS.maxPatternLength).optional(),
    reply: z.union([z.string().min(1).max(ONEBOT_LIMITS.maxReplyLength), z.array(segment).min(1).max(ONEBOT_LIMITS.maxReplySegments)]).optional()
      .describe('CQ-code text (sent as written unless auto_escape) or a segment array'),
    auto_escape: z.boolean().default(false).describe('true: the bot sends a string reply as plain text, CQ codes not parsed'),
    at_sender: z.boolean().default(false).describe('Group replies mention the sender'),
    message_type: z.enum(['private', 'group']).optional().describe('Only messages of this type'),
    group_id: oneBotId.optional().describe('Only events from this group'),
    user_id: oneBotId.optional().describe('Only events from this user'),
    enabled: z.boolean().default(true),
    priority: z.int().default(0).describe('Among matching rules the highest wins; ties go to the oldest id'),
    request_type: z.enum(['friend', 'group']).optional().describe('Makes this a request rule'),
    approve: z.boolean().optional().describe('Request rules: approve or reject'),
    remark: z.string().max(ONEBOT_LIMITS.maxPatternLength).optional().describe('Friend requests: remark for the approved friend'),
    reason: z.string().max(ONEBOT_LIMITS.maxPatternLength).optional().describe('Group requests: the reason given when rejecting'),
  }).superRefine((rule, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if ((rule.match === undefined) !== (rule.pattern === undefined)) problem(rule.match ? 'pattern' : 'match', 'match and pattern go together');
    if (rule.match === 'regex' && rule.pattern !== undefined) {
      const regex = linearRegex(rule.pattern);
      if (typeof regex === 'string') problem('pattern', regex);
    }
    if (rule.request_type === undefined) {
      if (rule.match === undefined) problem('match', 'a message rule needs match and pattern');
      if (rule.reply === undefined) problem('reply', 'a message rule needs a reply');
      for (const field of ['approve', 'remark', 'reason'] as const) if (rule[field] !== undefined) problem(field, `${field} belongs to request rules (set request_type)`);
      return;
    }
    if (rule.approve === undefined) problem('approve', 'a request rule needs approve: true or false');
    for (const field of ['reply', 'message_type'] as const) if (rule[field] !== undefined) problem(field, `${field} belongs to message rules`);
    if (rule.remark !== undefined && rule.request_type !== 'friend') problem('remark', 'remark applies to friend requests');
    if (rule.reason !== undefined && rule.request_type !== 'group') problem('reason', 'reason applies to group requests');
  }),
});
