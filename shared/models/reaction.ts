import * as zm from '../zod';
import { defineModel } from './define';

/**
 * The Reaction record of Gitea/Forgejo repository migration data
 * (modules/migration/schemas/reaction.json): exactly these three properties, nothing else,
 * no null, no length or enum constraints.
 */
export const reaction = defineModel({
  name: 'reaction',
  description: 'An emoji reaction from repository-migration data (Gitea/Forgejo reaction.json)',
  schema: zm.strictObject({
    user_id: zm.number(),
    user_name: zm.optional(zm.string()),
    content: zm.string(),
  }),
  indexed: ['user_id', 'content'],
});
