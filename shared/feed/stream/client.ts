import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { engineConnection } from '../../store/client';

let client: DynamoDBStreamsClient | undefined;

/**
 * One DynamoDB Streams client per process, made on first use, for the engine the document client
 * talks to (shared/store/client.ts): AWS's, or a local engine's on its one endpoint, which takes
 * any key. Every call bounded as the store's are.
 */
export function streams(): DynamoDBStreamsClient {
  client ??= new DynamoDBStreamsClient(engineConnection());
  return client;
}
