import { createTableInput, INDEX_SLOTS, TABLE_KEY } from '../../../shared/store/table';

const input = createTableInput('records');

test('the table is keyed by pk and sk, billed per request, with a stream of both images', () => {
  expect(input).toMatchObject({ TableName: 'records', BillingMode: 'PAY_PER_REQUEST' });
  // The change feed reads both images of every write (shared/feed/).
  expect(input.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
  expect(input.KeySchema).toEqual([
    { AttributeName: TABLE_KEY.partitionKey, KeyType: 'HASH' },
    { AttributeName: TABLE_KEY.sortKey, KeyType: 'RANGE' },
  ]);
});

test('every index slot is an index over its own two keys that projects the whole item, and every key is a string attribute', () => {
  expect(input.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(INDEX_SLOTS.map((slot) => slot.indexName));
  for (const [i, slot] of INDEX_SLOTS.entries()) {
    expect(input.GlobalSecondaryIndexes?.[i]).toEqual({
      IndexName: slot.indexName,
      KeySchema: [
        { AttributeName: slot.partitionKey, KeyType: 'HASH' },
        { AttributeName: slot.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    });
  }
  const keys = [TABLE_KEY.partitionKey, TABLE_KEY.sortKey, ...INDEX_SLOTS.flatMap((slot) => [slot.partitionKey, slot.sortKey])];
  expect(input.AttributeDefinitions).toEqual(keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })));
  expect(new Set(keys).size).toBe(keys.length);
});
