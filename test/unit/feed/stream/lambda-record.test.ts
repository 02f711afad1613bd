import { toLambdaRecord } from '../../../../shared/feed/stream/lambda-record';

const ARN = 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/2026-01-01T00:00:00.000';

test("a Streams API record becomes Lambda's DynamoDBRecord: the stream as eventSourceARN, epoch seconds, DynamoDB JSON with binary in base64", () => {
  const bytes = new Uint8Array([104, 105]);
  const record = toLambdaRecord(
    {
      eventID: 'e1',
      eventName: 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'us-east-1',
      dynamodb: {
        ApproximateCreationDateTime: new Date('2026-11-27T07:00:05.000Z'),
        Keys: { pk: { S: 'a' } },
        NewImage: {
          pk: { S: 'a' },
          b: { B: bytes },
          bs: { BS: [bytes] },
          l: { L: [{ B: bytes }, { N: '1' }] },
          m: { M: { in: { B: bytes } } },
          ok: { BOOL: true },
        },
        OldImage: { pk: { S: 'a' }, n: { NULL: true } },
        SequenceNumber: '000000000000000000001',
        SizeBytes: 10,
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    },
    ARN,
  );
  expect(record).toEqual({
    eventID: 'e1',
    eventName: 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: ARN,
    dynamodb: {
      ApproximateCreationDateTime: Date.parse('2026-11-27T07:00:05.000Z') / 1000,
      Keys: { pk: { S: 'a' } },
      NewImage: {
        pk: { S: 'a' },
        b: { B: 'aGk=' },
        bs: { BS: ['aGk='] },
        l: { L: [{ B: 'aGk=' }, { N: '1' }] },
        m: { M: { in: { B: 'aGk=' } } },
        ok: { BOOL: true },
      },
      OldImage: { pk: { S: 'a' }, n: { NULL: true } },
      SequenceNumber: '000000000000000000001',
      SizeBytes: 10,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  });
});

test("a TTL delete keeps DynamoDB's service identity, under the names Lambda's event gives it", () => {
  const record = toLambdaRecord(
    { eventName: 'REMOVE', userIdentity: { Type: 'Service', PrincipalId: 'dynamodb.amazonaws.com' }, dynamodb: { Keys: { pk: { S: 'a' } } } },
    ARN,
  );
  expect(record.userIdentity).toEqual({ type: 'Service', principalId: 'dynamodb.amazonaws.com' });
});
