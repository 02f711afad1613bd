import { defineModel, z } from 'recordgate/models';

/** A second module of the folder, in the full zod API: both APIs come from recordgate's one zod. */
export const tag = defineModel({
  name: 'tag',
  description: 'A tag of the team that adopted recordgate',
  schema: z.strictObject({ label: z.string() }),
});
