import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { toExactNumber } from '../json/exact-json';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * One document client per container, made on first use so that module load stays cheap.
 * Numbers come back exact (NumberValue when a JS number would round them).
 */
export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { DYNAMODB_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID } = settings();
    const local = DYNAMODB_ENDPOINT !== undefined && !AWS_ACCESS_KEY_ID;
    const client = new DynamoDBClient({
      region: AWS_REGION,
      endpoint: DYNAMODB_ENDPOINT,
      // Local engines accept any key; a real account never reaches this branch.
      credentials: local ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined,
      // Standard retry mode: jittered exponential backoff, 1 s base for throttling. Four attempts
      // sleep at most 1 + 2 + 4 = 7 s, inside the 10 s function timeout; a fifth could sleep 8 s
      // more, and the answer would then be the timeout's instead of a clean 503.
      maxAttempts: 4,
    });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
      unmarshallOptions: { wrapNumbers: toExactNumber },
    });
  }
  return documentClient;
}
