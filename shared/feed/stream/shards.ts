import { DescribeStreamCommand, type DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';

export interface ShardInfo {
  id: string;
  parent?: string;
  /** A closed shard takes no more records: read to its end, its children follow. */
  closed: boolean;
}

/**
 * The stream's shards, each after its parent: a record's earlier changes are in the parent
 * shard, so reading in this order keeps each item's records in commit order (one shard locally;
 * AWS splits and rolls them over).
 */
export async function describeShards(client: DynamoDBStreamsClient, streamArn: string): Promise<ShardInfo[]> {
  const found: ShardInfo[] = [];
  let ExclusiveStartShardId: string | undefined;
  do {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId }));
    for (const shard of StreamDescription?.Shards ?? []) {
      found.push({ id: shard.ShardId!, parent: shard.ParentShardId, closed: shard.SequenceNumberRange?.EndingSequenceNumber !== undefined });
    }
    ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
  } while (ExclusiveStartShardId);
  const known = new Set(found.map((s) => s.id));
  const ordered: ShardInfo[] = [];
  const placed = new Set<string>();
  const place = (shard: ShardInfo) => {
    if (placed.has(shard.id)) return;
    // A parent already trimmed away is no longer listed: the shard starts the lineage.
    const parent = shard.parent && known.has(shard.parent) ? found.find((s) => s.id === shard.parent) : undefined;
    if (parent) place(parent);
    placed.add(shard.id);
    ordered.push(shard);
  };
  for (const shard of found) place(shard);
  return ordered;
}
