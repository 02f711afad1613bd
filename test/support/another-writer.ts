import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '../../shared/config';
import { db } from '../../shared/store/client';

/**
 * Another writer's write of the item at `key`, straight to the table: the version one higher and
 * a write token of its own, as every writer stamps (each write is conditional on the token it
 * read, so a test's writer must never reuse one).
 */
export async function writeAsAnotherWriter(key: Record<string, string>, token: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: settings().TABLE_NAME,
      Key: key,
      UpdateExpression: 'SET #v = #v + :one, #w = :other',
      ExpressionAttributeNames: { '#v': '_version', '#w': '_w' },
      ExpressionAttributeValues: { ':one': 1, ':other': token },
    }),
  );
}
