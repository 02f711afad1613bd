import { defineModel, zm } from 'recordgate/models';

/** A team's model, kept in the team's own repository: what the adopt test deploys and serves. */
export const note = defineModel({
  name: 'note',
  description: 'A note of the team that adopted recordgate',
  schema: zm.strictObject({ title: zm.string().check(zm.minLength(1)), stars: zm.number() }),
  indexed: ['stars'],
});
