import * as z from '../zod';
import { defineModel } from './define';

/**
 * The Reaction record of Gitea/Forgejo repository migration data
 * (modules/migration/schemas/reaction.json): exactly these three properties, nothing else,
 * no null, no length or enum constraints.
 */
export const reaction = defineModel({
  name: 'reaction',
  description: 'An emoji reaction from repository-migration data (Gitea/Forgejo reaction.json)',
  schema: z.strictObject({
    user_id: z.number(),
    user_name: z.optional(z.string()),
    content: z.string(),
  }),
  indexed: ['user_id', 'content'],
});
