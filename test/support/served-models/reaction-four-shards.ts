import { defineModel } from '../../../shared/models/define';
import * as zm from '../../../shared/zod';

/** The reaction model edited to four shards: records stored with one are then looked for in the wrong partitions. */
export const reaction = defineModel({
  name: 'reaction',
  description: 'reaction, edited to four shards',
  schema: zm.strictObject({ user_id: zm.number(), user_name: zm.optional(zm.string()), content: zm.string() }),
  indexed: ['user_id', 'content'],
  shards: 4,
});
