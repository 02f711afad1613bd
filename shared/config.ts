import * as z from './zod';

const settingsSchema = z.object({
  TABLE_NAME: z._default(z.string().check(z.minLength(3)), 'recordgate'),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  AWS_REGION: z._default(z.string(), 'us-east-1'),
});

export type Settings = z.infer<typeof settingsSchema>;

let cached: Settings | undefined;

/** Settings from the environment, read once per process (a Lambda container or the local server). */
export function settings(): Settings {
  cached ??= settingsSchema.parse(process.env);
  return cached;
}
