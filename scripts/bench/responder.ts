import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** DynamoDB JSON (wire format) of the answer to one request, by operation name. */
export type Answers = Partial<Record<string, (request: Record<string, unknown>) => unknown>>;

/**
 * Replaces the network of a document client with canned DynamoDB answers, in process: a
 * middleware at the innermost end of the deserialize step returns the HTTP response, so
 * serialising, signing and parsing still run as they do against the real service and only
 * the socket is gone. Returns the function that puts the network back.
 */
export function answerInProcess(client: DynamoDBDocumentClient, answers: Answers): () => void {
  const name = `bench-responder-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    () => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: string | Uint8Array };
      const operation = request.headers['x-amz-target'].split('.')[1];
      const answer = answers[operation];
      if (!answer) throw new Error(`no canned answer for ${operation}`);
      // The bytes themselves: the SDK's body is a Uint8Array that warns when read as a string.
      const sent =
        typeof request.body === 'string' ? request.body : Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength).toString('utf8');
      const body = Buffer.from(JSON.stringify(answer(JSON.parse(sent) as Record<string, unknown>)));
      return {
        response: {
          statusCode: 200,
          reason: 'OK',
          headers: { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(body.length) },
          body: new Uint8Array(body),
        },
        output: undefined as never,
      };
    },
    { step: 'deserialize', priority: 'low', name },
  );
  return () => {
    client.middlewareStack.remove(name);
  };
}

const DOCUMENT_NAMES: Record<string, string> = {
  Put: 'PutItem',
  Get: 'GetItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchWrite: 'BatchWriteItem',
  TransactWrite: 'TransactWriteItems',
};

/** Records every call made through `client` (operation and the document input) until stopped. */
export function recordCalls(client: DynamoDBDocumentClient): { calls: Array<{ operation: string; input: object }>; stop: () => void } {
  const name = `bench-recorder-${Math.random().toString(36).slice(2)}`;
  const calls: Array<{ operation: string; input: object }> = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = (context.commandName ?? '').replace(/Command$/, '');
      calls.push({ operation: DOCUMENT_NAMES[command] ?? command, input: args.input as object });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { calls, stop: () => client.middlewareStack.remove(name) };
}

/** Adds `ms` of waiting to every request of `client`, like a network round trip to the service. */
export function addLatency(client: DynamoDBDocumentClient, ms: number): () => void {
  const name = `bench-latency-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next) => async (args) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return next(args);
    },
    { step: 'finalizeRequest', name },
  );
  return () => {
    client.middlewareStack.remove(name);
  };
}
