import * as z from 'zod';
import { defineModel, type ModelAccess } from '../../shared/models/define';

/** Issue 33's model with an owner rule: a bookmark its creator owns (`owner`, stamped from the caller's subject). */
export function bookmarkModel(name = 'bookmark', access: ModelAccess = 'read_write') {
  return defineModel({
    name,
    description: 'a bookmark its creator owns',
    schema: z.strictObject({ owner: z.string().optional(), url: z.string() }),
    owner: 'owner',
    access,
  });
}
