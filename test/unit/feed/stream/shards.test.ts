import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { describeShards } from '../../../../shared/feed/stream/shards';

/** A Streams client that answers DescribeStream with these pages of shards. */
function describing(pages: Array<{ shards: Array<{ id: string; parent?: string; end?: string }>; last?: string }>): DynamoDBStreamsClient {
  let call = 0;
  return {
    send: async () => {
      const page = pages[call++];
      return {
        StreamDescription: {
          Shards: page.shards.map((s) => ({
            ShardId: s.id,
            ParentShardId: s.parent,
            SequenceNumberRange: { StartingSequenceNumber: '1', EndingSequenceNumber: s.end },
          })),
          LastEvaluatedShardId: page.last,
        },
      };
    },
  } as unknown as DynamoDBStreamsClient;
}

test('every page of shards, each after its parent, whatever order DescribeStream lists them in', async () => {
  const shards = await describeShards(
    describing([
      {
        shards: [
          { id: 'c', parent: 'b' },
          { id: 'b', parent: 'a', end: '9' },
        ],
        last: 'b',
      },
      { shards: [{ id: 'a', parent: 'gone', end: '5' }, { id: 'd' }] },
    ]),
    'arn',
  );
  expect(shards).toEqual([
    { id: 'a', parent: 'gone', closed: true },
    { id: 'b', parent: 'a', closed: true },
    { id: 'c', parent: 'b', closed: false },
    { id: 'd', parent: undefined, closed: false },
  ]);
});
