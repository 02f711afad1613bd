import * as z from 'zod';

const settingsSchema = z.object({
  TABLE_NAME: z.string().min(3).default('recordgate'),
  DYNAMODB_ENDPOINT: z.url().optional(),
  AWS_REGION: z.string().default('us-east-1'),
});

export type Settings = z.infer<typeof settingsSchema>;

let cached: Settings | undefined;

/** Settings from the environment, read once per process (a Lambda container or the local server). */
export function settings(): Settings {
  cached ??= settingsSchema.parse(process.env);
  return cached;
}
