import type { AttributeValue, _Record as StreamsRecord } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue as LambdaAttributeValue, DynamoDBRecord } from 'aws-lambda';

/**
 * A record of the Streams API as Lambda's event source mapping hands it to a function
 * (`DynamoDBRecord`): the stream's ARN as `eventSourceARN`, the time as epoch seconds, the keys
 * and images in DynamoDB JSON (binary as base64), so the consumer runs on the same shape locally
 * and in AWS.
 */
export function toLambdaRecord(record: StreamsRecord, streamArn: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const time = stream.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion,
    eventSource: record.eventSource,
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    ...(record.userIdentity ? { userIdentity: { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId } } : {}),
    dynamodb: {
      ApproximateCreationDateTime: time === undefined ? undefined : Math.floor(time.getTime() / 1000),
      Keys: image(stream.Keys),
      NewImage: image(stream.NewImage),
      OldImage: image(stream.OldImage),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
  };
}

function image(item: Record<string, AttributeValue> | undefined): Record<string, LambdaAttributeValue> | undefined {
  if (!item) return undefined;
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, json(value)]));
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** One attribute value in DynamoDB JSON, as the service's wire format and Lambda's event write it. */
function json(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(json) };
  if (value.M !== undefined) return { M: image(value.M)! };
  return value as LambdaAttributeValue;
}
