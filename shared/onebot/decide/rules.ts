import type { ModelRecord } from '../../models/model';
import { onebotRule } from '../../models/onebot';
import { listRecords } from '../../store/records';
import { plainText, toSegments } from './cq';
import type { OneBotEvent } from '../event';
import { idText, sameId } from '../event';
import { ONEBOT_LIMITS } from '../../limits';
import { linearRegex, regexEngine, regexMatches } from '../../regex/linear';

export type Rule = ModelRecord<typeof onebotRule> & { id: string };

export interface QuickAnswer {
  /** The quick operation body; absent, the sender is answered 200 `{}` (receive.ts says why not 204). */
  answer?: Record<string, unknown>;
  rule_id?: string;
}

/** What a rule's pattern is compared with, and the scope it is checked in. */
interface Subject {
  kind: 'message' | 'request';
  /** message_type or request_type */
  type: string;
  text: string;
  event: OneBotEvent;
}

function subjectOf(event: OneBotEvent): Subject | undefined {
  // Only `message`: replying to `message_sent` (the bot's own messages) would loop.
  if (event.post_type === 'message' && (event.message_type === 'private' || event.message_type === 'group')) {
    return { kind: 'message', type: event.message_type, text: plainText(event.message ?? event.raw_message), event };
  }
  if (event.post_type === 'request' && (event.request_type === 'friend' || event.request_type === 'group')) {
    return { kind: 'request', type: event.request_type, text: typeof event.comment === 'string' ? event.comment : '', event };
  }
  return undefined;
}

async function patternMatches(rule: Rule, text: string): Promise<boolean> {
  const pattern = rule.pattern ?? '';
  switch (rule.match) {
    case undefined:
      return true;
    case 'exact':
      return text === pattern;
    case 'prefix':
      return text.startsWith(pattern);
    case 'keyword':
      return text.includes(pattern);
    case 'regex': {
      // The RE2 engine is loaded here, by the first regex rule compared: a receiver that meets none never loads it.
      const regex = linearRegex(await regexEngine(), pattern);
      return typeof regex !== 'string' && regexMatches(regex, text);
    }
  }
}

async function applies(rule: Rule, subject: Subject): Promise<boolean> {
  const { event } = subject;
  const typeFits =
    subject.kind === 'message'
      ? rule.request_type === undefined && (rule.message_type === undefined || rule.message_type === subject.type)
      : rule.request_type === subject.type;
  if (!typeFits) return false;
  if (rule.group_id !== undefined && !sameId(rule.group_id, event.group_id)) return false;
  if (rule.user_id !== undefined && !sameId(rule.user_id, event.user_id)) return false;
  return patternMatches(rule, subject.text);
}

/**
 * The reply of a message rule. A mention is part of the reply itself, as an `at` segment before
 * it: go-cqhttp's own at_sender pastes `[CQ:at,qq=N]` before a string reply inside JSON text
 * without escaping it (a `"` in the reply cuts it short, and with auto_escape the code goes out
 * as literal text), and an anonymous sender cannot be mentioned at all.
 */
function replyOf(rule: Rule, subject: Subject): Pick<Record<string, unknown>, 'reply' | 'auto_escape'> {
  const reply = rule.reply!;
  const mention = subject.type === 'group' && rule.at_sender && (subject.event.anonymous ?? null) === null && subject.event.user_id !== undefined;
  if (!mention) return { reply, auto_escape: rule.auto_escape };
  const rest = typeof reply === 'string' ? toSegments(reply, rule.auto_escape) : reply;
  // NoneBot's at_sender puts a space between the mention and the text; so does this.
  return { reply: [{ type: 'at', data: { qq: idText(subject.event.user_id) } }, { type: 'text', data: { text: ' ' } }, ...rest], auto_escape: false };
}

function answerOf(rule: Rule, subject: Subject): Record<string, unknown> {
  if (subject.kind === 'message') {
    // go-cqhttp reads a missing at_sender as false, the spec as true: always say it in groups.
    // The mention, when asked for, is already in the reply.
    return { ...replyOf(rule, subject), ...(subject.type === 'group' ? { at_sender: false } : {}) };
  }
  if (subject.type === 'friend') return { approve: rule.approve, ...(rule.approve && rule.remark !== undefined ? { remark: rule.remark } : {}) };
  return { approve: rule.approve, ...(!rule.approve && rule.reason !== undefined ? { reason: rule.reason } : {}) };
}

/** The answer of the highest-priority enabled rule that applies (ties: the oldest id); rules come in id order. */
export async function ruleAnswer(rules: ReadonlyArray<Rule>, event: OneBotEvent): Promise<QuickAnswer> {
  const subject = subjectOf(event);
  if (!subject) return {};
  let best: Rule | undefined;
  for (const rule of rules) {
    if (rule.enabled && (!best || rule.priority > best.priority) && (await applies(rule, subject))) best = rule;
  }
  return best ? { answer: answerOf(best, subject), rule_id: best.id } : {};
}

/**
 * Reads the enabled rules (one query, no cache: a rule changed through the API applies to the
 * next event) only for the events a rule can answer.
 */
export async function quickAnswer(event: OneBotEvent): Promise<QuickAnswer> {
  if (!subjectOf(event)) return {};
  const { items } = await listRecords(onebotRule, { filters: { enabled: true }, limit: ONEBOT_LIMITS.maxRules });
  return ruleAnswer(items as Rule[], event);
}
