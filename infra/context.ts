import * as z from 'zod';
import type { Node } from 'constructs';
import { parseApiRoots } from '../shared/onebot/decide/api-call';

const list = z.string().transform((text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/**
 * The deploy-time switches (`npx cdk deploy -c name=value`). Unknown values stop the synth with
 * a clear message instead of deploying something the operator did not ask for.
 */
const contextSchema = z
  .object({
    /** Stack name, so one account can hold several copies (dev, prod). */
    stackName: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]*$/)
      .default('Recordgate'),
    /** An OIDC issuer URL: adds an API Gateway JWT authorizer in front of the record API. */
    jwtIssuer: z.url().optional(),
    /** Audiences (client ids) the JWT authorizer accepts, comma-separated. */
    jwtAudience: list.optional(),
    /** Prefix of the scopes the identity provider issues (`recordgate/` for `recordgate/read`). */
    jwtScopePrefix: z.string().default(''),
    /** Bot accounts the OneBot receiver accepts (ONEBOT_SELF_IDS), comma-separated; unset accepts any. */
    onebotSelfIds: list.pipe(z.array(z.string().regex(/^\d+$/, 'a bot account is a number'))).optional(),
    /** ONEBOT_API_ROOTS: JSON object of bot account -> its OneBot HTTP API root URL; rules act through it. */
    onebotApiRoots: z
      .string()
      .refine((text) => {
        try {
          parseApiRoots(text);
          return true;
        } catch {
          return false;
        }
      }, 'a JSON object of bot account (digits) -> http(s) URL')
      .optional(),
    /**
     * CORS_ORIGINS of every HTTP function: the browser origins allowed to call the API,
     * comma-separated (`https://app.example.com`, `https://*.example.com`, or `*`); unset: CORS off.
     */
    corsOrigins: list
      .pipe(z.array(z.string().regex(/^(\*|https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d+)?)$/, 'an origin is *, or scheme://host[:port] with no path')))
      .optional(),
    /** Email addresses subscribed to the alarm topic, comma-separated. */
    alarmEmail: list.pipe(z.array(z.email())).default([]),
    /**
     * `retain` keeps what holds data or secrets (table, bucket, queues, secrets, logs) when the stack
     * is deleted; `destroy` deletes all of it, for dev stacks.
     */
    removal: z.enum(['retain', 'destroy']).default('retain'),
    /** An existing table (one a retained stack left) to use instead of creating one, so a redeploy keeps its records. */
    tableName: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{3,255}$/, 'a DynamoDB table name')
      .optional(),
    /**
     * With tableName: the existing table's stream (its LatestStreamArn, NEW_AND_OLD_IMAGES), which
     * the change feed reads; a stack cannot turn on the stream of a table it does not own.
     */
    tableStreamArn: z
      .string()
      .regex(/^arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table\/[A-Za-z0-9_.-]{3,255}\/stream\/[0-9A-Za-z:.-]+$/, "a table's stream ARN")
      .optional(),
    /**
     * A JSON file of SUBSCRIPTIONS (docs/feed.md), checked at synth as `npm start` checks the
     * variable: the buses it names are the only ones the feed may put events on. Its content is
     * never put into the template (webhook secrets): the operator puts the same file into the
     * SUBSCRIPTIONS secret. Unset: no subscription to a bus.
     */
    subscriptionsFile: z.string().min(1).optional(),
    /** The Parameters and Secrets Lambda Extension layer ARN, for a region aws-cdk-lib has none for (infra/platform.ts). */
    secretsLayerArn: z
      .string()
      .regex(/^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:layer:AWS-Parameters-and-Secrets-Lambda-Extension(-Arm64)?:\d+$/, 'the extension layer ARN AWS lists')
      .optional(),
  })
  .refine((c) => (c.jwtIssuer === undefined) === (c.jwtAudience === undefined), {
    message: 'jwtIssuer and jwtAudience go together',
  })
  .refine((c) => c.tableName === undefined || c.tableStreamArn !== undefined, {
    message:
      "tableName needs tableStreamArn: the change feed reads the table's stream. Turn it on with `aws dynamodb update-table --table-name <name> --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES` and pass its LatestStreamArn",
  })
  .refine((c) => c.tableStreamArn === undefined || c.tableName !== undefined, { message: 'tableStreamArn goes with tableName' });

/** Every `-c` option the stack reads, for docs/deploying.md's table (a test compares them). */
export const CONTEXT_OPTIONS = Object.keys(contextSchema.shape);

export type DeployContext = z.infer<typeof contextSchema>;

export function readContext(node: Node): DeployContext {
  const raw = Object.fromEntries(CONTEXT_OPTIONS.map((key) => [key, node.tryGetContext(key)]).filter(([, v]) => v !== undefined));
  const parsed = contextSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`Invalid cdk context: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
