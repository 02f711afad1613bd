/**
 * The cold-start baseline: the smallest useful DynamoDB Lambda function, a document client
 * made at module load and one GetItem per invocation. Bundled exactly like our functions.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { id: string }) => {
  const { Item } = await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: 'bench#0', sk: event.id } }));
  return Item;
};
