import * as zm from '../zod';
import type { StreamPosition, StreamRange } from './stream/read';

/**
 * Where a replay of a range stopped, for the next request to go on from (`next_cursor`, then
 * `cursor`): the subscription, the range, and the position in the stream. Plain base64url JSON,
 * checked on the way back in: it reaches only the admin scope, and names nothing an admin could
 * not ask for with `since` and `until`.
 */
const cursorSchema = zm.strictObject({
  subscription: zm.string(),
  from: zm.number(),
  until: zm.number(),
  done: zm.array(zm.string()),
  at: zm.optional(zm.strictObject({ shard: zm.string(), after: zm.string() })),
});

export interface ReplayCursor {
  subscription: string;
  range: StreamRange;
  position: StreamPosition;
}

export const encodeReplayCursor = ({ subscription, range, position }: ReplayCursor): string =>
  Buffer.from(JSON.stringify({ subscription, ...range, done: position.done, ...(position.at ? { at: position.at } : {}) }), 'utf8').toString('base64url');

/** The cursor a replay answered with, or undefined for anything else. */
export function decodeReplayCursor(text: string): ReplayCursor | undefined {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = zm.safeParse(cursorSchema, json);
  if (!parsed.success) return undefined;
  const { subscription, from, until, done, at } = parsed.data;
  return { subscription, range: { from, until }, position: { done, ...(at ? { at } : {}) } };
}
