import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { settings } from '../../config';
import { BOUNDED_HTTP } from '../../invocation';

let client: DynamoDBStreamsClient | undefined;

/**
 * One DynamoDB Streams client per process, made on first use, for the engine the document client
 * talks to (shared/store/client.ts): AWS's, or a local engine's on its one endpoint, which takes
 * any key. Every call bounded as the store's are.
 */
export function streams(): DynamoDBStreamsClient {
  if (!client) {
    const { DYNAMODB_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID } = settings();
    const local = DYNAMODB_ENDPOINT !== undefined && !AWS_ACCESS_KEY_ID;
    client = new DynamoDBStreamsClient({
      region: AWS_REGION,
      endpoint: DYNAMODB_ENDPOINT,
      credentials: local ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined,
      requestHandler: BOUNDED_HTTP,
    });
  }
  return client;
}
