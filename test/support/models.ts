import * as z from 'zod';
import { defineModel } from '../../shared/models/define';

/** A model with nested fields, several index slots and shards, used to test the store directly. */
export function noteModel(name = 'note', shards = 1) {
  return defineModel({
    name,
    description: 'test model',
    schema: z.strictObject({
      title: z.string(),
      rank: z.number().optional(),
      tags: z.array(z.string()).optional(),
      meta: z.object({ author: z.object({ login: z.string() }).optional(), stars: z.number().optional() }).optional(),
      done: z.boolean().optional(),
    }),
    indexed: ['rank', 'title'],
    shards,
  });
}
