import { defineModel } from '../../../shared/models/define';
import * as zm from '../../../shared/zod';

/** The reaction model with a fourth indexed field: one more than the table has index slots. */
export const reaction = defineModel({
  name: 'reaction',
  description: 'reaction, edited to index a fourth field',
  schema: zm.strictObject({ user_id: zm.number(), user_name: zm.optional(zm.string()), content: zm.string(), extra: zm.optional(zm.string()) }),
  indexed: ['user_id', 'content', 'user_name', 'extra'],
});
