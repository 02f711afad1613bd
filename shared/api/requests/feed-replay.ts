import * as zm from '../../zod';

const given = (value: unknown) => value !== undefined;

/** A replay asks for one thing: the dead letters, a range of the stream, or the rest of a range a replay stopped in. */
export const feedReplayRequest = zm
  .strictObject({
    dead_letters: zm.optional(zm.literal(true)).check(zm.describe("true: queue the subscription's dead letters again, oldest first, each removed once queued")),
    since: zm
      .optional(zm.iso.datetime({ offset: true }))
      .check(
        zm.describe(
          "An ISO 8601 time within the stream's 24 hours: queue again every change since then (from the start of its minute) up to `until` that the subscription matches, in commit order",
        ),
      ),
    until: zm
      .optional(zm.iso.datetime({ offset: true }))
      .check(
        zm.describe(
          "With `since`: the range's end, an ISO 8601 time, by the stream's own times (to the second; DynamoDB Local's to the minute), itself in. Absent: the time of the request",
        ),
      ),
    cursor: zm
      .optional(zm.string())
      .check(zm.describe('A `next_cursor` a replay answered with: queue the rest of its range, from where it stopped. Alone, without `since` or `until`')),
  })
  .check(
    zm.refine((body) => [body.dead_letters, body.since, body.cursor].filter(given).length === 1, {
      error: 'give one of dead_letters (true), since (an ISO 8601 time) or cursor (the next_cursor of a replay), not more',
    }),
    zm.refine((body) => body.until === undefined || body.since !== undefined, { error: 'until goes with since', path: ['until'] }),
    zm.refine((body) => body.until === undefined || body.since === undefined || Date.parse(body.until) >= Date.parse(body.since), {
      error: 'until is before since',
      path: ['until'],
    }),
  );
