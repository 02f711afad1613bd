import * as zm from '../../zod';

/** A replay asks for one thing: the dead letters, or the stream since a time. */
export const feedReplayRequest = zm
  .strictObject({
    dead_letters: zm.optional(zm.literal(true)).check(zm.describe("true: queue the subscription's dead letters again, oldest first, each removed once queued")),
    since: zm
      .optional(zm.iso.datetime({ offset: true }))
      .check(
        zm.describe(
          "An ISO 8601 time within the stream's 24 hours: queue again every change since then (from the start of its minute) that the subscription matches, in commit order",
        ),
      ),
  })
  .check(
    zm.refine((body) => (body.dead_letters === undefined) !== (body.since === undefined), {
      error: 'give one of dead_letters (true) or since (an ISO 8601 time), not both',
    }),
  );
