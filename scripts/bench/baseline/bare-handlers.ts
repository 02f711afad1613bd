/**
 * The warm-CPU baselines: the least a handler can do for the same request. JSON.parse, no
 * validation, the very SDK calls our handler made (recorded from it, replayed through a plain
 * document client), JSON.stringify of the answer.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createHmac, timingSafeEqual } from 'node:crypto';

export const bareClient = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } }),
);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const COMMANDS: Record<string, new (input: any) => any> = {
  Query: QueryCommand,
  GetItem: GetCommand,
  PutItem: PutCommand,
  UpdateItem: UpdateCommand,
  DeleteItem: DeleteCommand,
  BatchWriteItem: BatchWriteCommand,
  TransactWriteItems: TransactWriteCommand,
};

/** One SDK call as a document client was asked to make it. */
export interface RecordedCall {
  operation: string;
  input: object;
}

export type BareHandler = (event: APIGatewayProxyEventV2) => Promise<unknown>;

const rawBody = (event: APIGatewayProxyEventV2) => Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');

async function replay(calls: ReadonlyArray<RecordedCall>): Promise<unknown> {
  let output: unknown;
  for (const call of calls) output = await bareClient.send(new COMMANDS[call.operation](call.input));
  return output;
}

/** JSON.parse of the body, the recorded calls, JSON.stringify of the last answer. */
export const replayHandler =
  (calls: ReadonlyArray<RecordedCall>): BareHandler =>
  async (event) => {
    const text = rawBody(event).toString('utf8');
    JSON.parse(text || '{}');
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(await replay(calls)) };
  };

/** The OneBot baseline: HMAC-SHA1 of the raw body checked, JSON.parse, the recorded store calls. */
export const bareReceiver =
  (secret: string, calls: ReadonlyArray<RecordedCall>): BareHandler =>
  async (event) => {
    const raw = rawBody(event);
    const expected = Buffer.from(`sha1=${createHmac('sha1', secret).update(raw).digest('hex')}`);
    const given = Buffer.from(event.headers['x-signature'] ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { statusCode: 403 };
    JSON.parse(raw.toString('utf8'));
    await replay(calls);
    return { statusCode: 204 };
  };

/** The baseline of a function that answers without the database: the same answer, serialised. */
export const staticAnswer =
  (data: unknown): BareHandler =>
  async () => ({ statusCode: 200, body: JSON.stringify(data) });
