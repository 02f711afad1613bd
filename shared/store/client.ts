import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { settings } from '../config';
import { BOUNDED_HTTP } from '../invocation';
import { toExactNumber } from '../json/exact-json';
import { LIMITS } from '../limits';
import { trackAttempts } from './attempts';

let documentClient: DynamoDBDocumentClient | undefined;
let baseClient: DynamoDBClient | undefined;

/**
 * One document client per container, made on first use so that module load stays cheap.
 * Numbers come back exact (NumberValue when a JS number would round them). Every call is
 * bounded: connect and answer timeouts here (CALL_LIMITS), and each `send` passes `inTime()`
 * (shared/invocation.ts), the SDK's abortSignal at the invocation's cutoff.
 */
/** Where the engine is and how a client reaches it: the document client's and the stream reader's (shared/feed/stream/client.ts). */
export function engineConnection() {
  const { DYNAMODB_ENDPOINT, AWS_REGION, AWS_ACCESS_KEY_ID } = settings();
  const local = DYNAMODB_ENDPOINT !== undefined && !AWS_ACCESS_KEY_ID;
  return {
    region: AWS_REGION,
    endpoint: DYNAMODB_ENDPOINT,
    // Local engines accept any key; a real account never reaches this branch.
    credentials: local ? { accessKeyId: 'local', secretAccessKey: 'local' } : undefined,
    requestHandler: BOUNDED_HTTP,
  };
}

export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    baseClient = new DynamoDBClient({
      ...engineConnection(),
      // Standard retry mode; LIMITS.dynamoAttempts says why this many.
      maxAttempts: LIMITS.dynamoAttempts,
    });
    documentClient = DynamoDBDocumentClient.from(baseClient, {
      marshallOptions: { removeUndefinedValues: true },
      unmarshallOptions: { wrapNumbers: toExactNumber },
    });
    trackAttempts(documentClient);
  }
  return documentClient;
}

/** The client under db(), for the table's own calls the document client does not type (DescribeTable: the stream's ARN). */
export function tableClient(): DynamoDBClient {
  db();
  return baseClient!;
}
