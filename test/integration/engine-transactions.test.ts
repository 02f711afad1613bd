import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  type TransactWriteItemsCommandInput,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { adminClient } from '../../scripts/local/engine';
import { INDEX_SLOTS } from '../../shared/store/table';

// TransactWriteItems straight against the engine, as DynamoDB answers it: run on dynalite (whose
// transactions are patches 004 and 006) and on DynamoDB Local, with the same expectations, so
// that the record API's transactions mean the same on `npm start` as deployed.
const TableName = process.env.TABLE_NAME!;
const slot = INDEX_SLOTS[0];
let client: DynamoDBClient;

beforeAll(() => {
  // One attempt: a throttled or failed call must reach the test as the engine answered it.
  client = adminClient(process.env.DYNAMODB_ENDPOINT!, undefined, { maxAttempts: 1 });
});
afterAll(() => client.destroy());

type Item = Record<string, AttributeValue>;
const key = (id: string): Item => ({ pk: { S: 'tx' }, sk: { S: id } });
const n = (value: number | string): AttributeValue => ({ N: String(value) });
const s = (value: string): AttributeValue => ({ S: value });

async function put(id: string, attributes: Item): Promise<void> {
  await client.send(new PutItemCommand({ TableName, Item: { ...key(id), ...attributes } }));
}

async function stored(id: string): Promise<Item | undefined> {
  return (await client.send(new GetItemCommand({ TableName, Key: key(id), ConsistentRead: true }))).Item;
}

function update(id: string, UpdateExpression: string, more: Partial<NonNullable<TransactWriteItem['Update']>> = {}): TransactWriteItem {
  return { Update: { TableName, Key: key(id), UpdateExpression, ...more } };
}

/** The engine's answer as data: the output, or the error's name, message and reasons. */
async function transact(input: Omit<TransactWriteItemsCommandInput, 'TransactItems'> & { TransactItems: TransactWriteItem[] }) {
  try {
    const { $metadata, ...output } = await client.send(new TransactWriteItemsCommand(input));
    return { ok: output };
  } catch (error) {
    const { name, message, CancellationReasons } = error as { name: string; message: string; CancellationReasons?: unknown };
    return CancellationReasons ? { name, message, reasons: CancellationReasons } : { name, message };
  }
}

const cancelledFor = (...codes: string[]) => `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`;
const CONDITION_FAILED = { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' };

describe('Update actions', () => {
  test('SET with arithmetic, if_not_exists and list_append, ADD, REMOVE and DELETE apply as UpdateItem applies them', async () => {
    await put('u1', { n: n(5), l: { L: [s('x')] }, tags: { SS: ['a', 'b'] }, shed: { SS: ['a', 'b'] }, gone: s('z'), meta: { M: { in: n(1), keep: s('k') } } });
    const answer = await transact({
      TransactItems: [
        update(
          'u1',
          'SET n = n + :one, l = list_append(l, :l), f = if_not_exists(f, :zero), meta.#in = meta.#in - :one ADD c :one, tags :c REMOVE gone DELETE shed :a',
          {
            ExpressionAttributeNames: { '#in': 'in' },
            ExpressionAttributeValues: { ':one': n(1), ':l': { L: [s('y')] }, ':zero': n(0), ':c': { SS: ['c'] }, ':a': { SS: ['a'] } },
          },
        ),
        // An Update of a missing item makes it from its key, as UpdateItem does.
        update('u2', 'SET #v = :v ADD tally :big', {
          ExpressionAttributeNames: { '#v': 'v' },
          ExpressionAttributeValues: { ':v': s('new'), ':big': n('18446744073709551616') },
        }),
      ],
    });
    expect(answer).toEqual({ ok: {} });
    expect(await stored('u1')).toEqual({
      ...key('u1'),
      n: n(6),
      l: { L: [s('x'), s('y')] },
      f: n(0),
      meta: { M: { in: n(0), keep: s('k') } },
      c: n(1),
      tags: { SS: expect.arrayContaining(['a', 'b', 'c']) },
      shed: { SS: ['b'] },
    });
    expect(await stored('u2')).toEqual({ ...key('u2'), v: s('new'), tally: n('18446744073709551616') });
  });

  test('index entries follow the item: set, moved and removed by updates, dropped by a delete, in the same all-or-nothing write', async () => {
    const indexed = async () => {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName,
          IndexName: slot.indexName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': slot.partitionKey },
          ExpressionAttributeValues: { ':pk': s('tx-index') },
        }),
      );
      return Items.map((i) => `${i.sk.S}@${i[slot.sortKey].S}`).sort();
    };
    const setIndex = (id: string, sort: string) =>
      update(id, `SET ${slot.partitionKey} = :pk, ${slot.sortKey} = :sk`, { ExpressionAttributeValues: { ':pk': s('tx-index'), ':sk': s(sort) } });
    expect(await transact({ TransactItems: [setIndex('i1', 'a'), setIndex('i2', 'b')] })).toEqual({ ok: {} });
    expect(await indexed()).toEqual(['i1@a', 'i2@b']);
    expect(await transact({ TransactItems: [setIndex('i1', 'c'), update('i2', `REMOVE ${slot.sortKey}`)] })).toEqual({ ok: {} });
    expect(await indexed()).toEqual(['i1@c']);
    expect(await transact({ TransactItems: [{ Delete: { TableName, Key: key('i1') } }, setIndex('i3', 'd')] })).toEqual({ ok: {} });
    expect(await indexed()).toEqual(['i3@d']);
    // Cancelled: neither the new index entry nor the item is written.
    const failing = { ConditionCheck: { TableName, Key: key('i-missing'), ConditionExpression: 'attribute_exists(pk)' } };
    expect(await transact({ TransactItems: [setIndex('i4', 'e'), failing] })).toMatchObject({ name: 'TransactionCanceledException' });
    expect(await indexed()).toEqual(['i3@d']);
    expect(await stored('i4')).toBeUndefined();
  });
});

describe('conditions', () => {
  test('each kind of action honours its condition; the reasons come in action order, with the old item when asked', async () => {
    await put('c1', { n: n(1) });
    await put('c2', { n: n(2) });
    await put('c4', { n: n(4) });
    await put('c5', { n: n(5) });
    const answer = await transact({
      TransactItems: [
        {
          Put: { TableName, Item: { ...key('c1'), n: n(9) }, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
        },
        { Put: { TableName, Item: { ...key('c3'), n: n(3) }, ConditionExpression: 'attribute_not_exists(pk)' } },
        { Delete: { TableName, Key: key('c-missing'), ConditionExpression: 'attribute_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
        update('c2', 'SET n = n + :one', { ConditionExpression: 'n > :one', ExpressionAttributeValues: { ':one': n(1) } }),
        update('c-new', 'SET n = :one', {
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': n(1) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        { ConditionCheck: { TableName, Key: key('c4'), ConditionExpression: 'n = :four', ExpressionAttributeValues: { ':four': n(4) } } },
        { ConditionCheck: { TableName, Key: key('c5'), ConditionExpression: 'n = :four', ExpressionAttributeValues: { ':four': n(4) } } },
      ],
    });
    const codes = ['ConditionalCheckFailed', 'None', 'ConditionalCheckFailed', 'None', 'ConditionalCheckFailed', 'None', 'ConditionalCheckFailed'];
    expect(answer).toEqual({
      name: 'TransactionCanceledException',
      message: cancelledFor(...codes),
      reasons: [
        { ...CONDITION_FAILED, Item: { ...key('c1'), n: n(1) } },
        { Code: 'None' },
        CONDITION_FAILED,
        { Code: 'None' },
        CONDITION_FAILED,
        { Code: 'None' },
        // DynamoDB Local words a ConditionCheck's failure with a full stop; dynalite does too.
        { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed.' },
      ],
    });
    expect([await stored('c1'), await stored('c2'), await stored('c3'), await stored('c-new')]).toEqual([
      { ...key('c1'), n: n(1) },
      { ...key('c2'), n: n(2) },
      undefined,
      undefined,
    ]);
  });

  test('an update that holds is applied with the rest; a delete that holds deletes', async () => {
    await put('h1', { n: n(1) });
    await put('h2', { n: n(2) });
    const answer = await transact({
      TransactItems: [
        update('h1', 'ADD n :one', { ConditionExpression: 'n = :one', ExpressionAttributeValues: { ':one': n(1) } }),
        { Delete: { TableName, Key: key('h2'), ConditionExpression: 'n = :two', ExpressionAttributeValues: { ':two': n(2) } } },
      ],
    });
    expect(answer).toEqual({ ok: {} });
    expect([await stored('h1'), await stored('h2')]).toEqual([{ ...key('h1'), n: n(2) }, undefined]);
  });

  test('an update expression that cannot apply refuses the whole request, whatever the other conditions; under its own failed condition it is never applied', async () => {
    await put('e1', { word: s('str') });
    const otherFails = { ConditionCheck: { TableName, Key: key('e-missing'), ConditionExpression: 'attribute_exists(pk)' } };
    const cases = [
      [update('e1', 'ADD word :one', { ExpressionAttributeValues: { ':one': n(1) } }), 'An operand in the update expression has an incorrect data type'],
      [
        update('e1', 'SET x = y + :one', { ExpressionAttributeValues: { ':one': n(1) } }),
        'The provided expression refers to an attribute that does not exist in the item',
      ],
      [
        update('e1', 'SET a.b = :one', { ExpressionAttributeValues: { ':one': n(1) } }),
        'The document path provided in the update expression is invalid for update',
      ],
    ] as const;
    for (const [action, message] of cases) {
      expect(await transact({ TransactItems: [otherFails, action] })).toEqual({ name: 'ValidationException', message });
    }
    const ownConditionFails = update('e1', 'SET x = y + :one', {
      ConditionExpression: 'attribute_not_exists(pk)',
      ExpressionAttributeValues: { ':one': n(1) },
    });
    expect(await transact({ TransactItems: [ownConditionFails] })).toEqual({
      name: 'TransactionCanceledException',
      message: cancelledFor('ConditionalCheckFailed'),
      reasons: [CONDITION_FAILED],
    });
    expect(await stored('e1')).toEqual({ ...key('e1'), word: s('str') });
  });

  test('what the item would become is checked: a key, an index key of the wrong type, an item past 400 KB are validation reasons', async () => {
    await put('v1', { big: s('x'.repeat(390 * 1024)) });
    const check = { ConditionCheck: { TableName, Key: key('v1'), ConditionExpression: 'attribute_exists(pk)' } };
    const reasonFor = async (action: TransactWriteItem) => transact({ TransactItems: [check, action] });
    const validation = (Message: string) => ({
      name: 'TransactionCanceledException',
      message: cancelledFor('None', 'ValidationError'),
      reasons: [{ Code: 'None' }, { Code: 'ValidationError', Message }],
    });
    // Alone: beside other actions DynamoDB Local answers a key update with this one reason only,
    // where the API reference gives one reason per action, as dynalite does.
    const keyUpdate = 'One or more parameter values were invalid: Cannot update attribute sk. This attribute is part of the key';
    expect(await transact({ TransactItems: [update('v2', 'SET sk = :x', { ExpressionAttributeValues: { ':x': s('x') } })] })).toEqual({
      name: 'TransactionCanceledException',
      message: cancelledFor('ValidationError'),
      reasons: [{ Code: 'ValidationError', Message: keyUpdate }],
    });
    const indexTypeMismatch = validation('One or more parameter values were invalid: Type mismatch for Index Key');
    expect(await reasonFor(update('v2', `SET ${slot.partitionKey} = :n`, { ExpressionAttributeValues: { ':n': n(1) } }))).toEqual(indexTypeMismatch);
    expect(await reasonFor({ Put: { TableName, Item: { ...key('v2'), [slot.partitionKey]: n(1) } } })).toEqual(indexTypeMismatch);
    const grow = update('v1-copy', 'SET big = :big', { ExpressionAttributeValues: { ':big': s('x'.repeat(390 * 1024)) } });
    await put('v1-copy', { pad: s('y'.repeat(20 * 1024)) });
    expect(await reasonFor(grow)).toEqual(validation('Item size to update has exceeded the maximum allowed size'));
    expect(await stored('v2')).toBeUndefined();
  });
});

describe('ClientRequestToken', () => {
  const transfer = (amount: number) => update('t1', 'ADD n :v', { ExpressionAttributeValues: { ':v': n(amount) } });

  test('a repeat of the same request succeeds without applying again; the same token on another request is refused', async () => {
    expect(await transact({ ClientRequestToken: 'token-1', TransactItems: [transfer(1)] })).toEqual({ ok: {} });
    // The same request in another key order, asking for its capacity: still the same request.
    const sameAgain = { TransactItems: [{ Update: { ExpressionAttributeValues: { ':v': n(1) }, UpdateExpression: 'ADD n :v', Key: key('t1'), TableName } }] };
    expect(await transact({ ...sameAgain, ClientRequestToken: 'token-1', ReturnConsumedCapacity: 'NONE' })).toEqual({ ok: {} });
    expect(await stored('t1')).toEqual({ ...key('t1'), n: n(1) });
    expect(await transact({ ClientRequestToken: 'token-1', TransactItems: [transfer(2)] })).toMatchObject({ name: 'IdempotentParameterMismatchException' });
    const withOption = update('t1', 'ADD n :v', { ExpressionAttributeValues: { ':v': n(1) }, ReturnValuesOnConditionCheckFailure: 'NONE' });
    expect(await transact({ ClientRequestToken: 'token-1', TransactItems: [withOption] })).toMatchObject({ name: 'IdempotentParameterMismatchException' });
    expect(await stored('t1')).toEqual({ ...key('t1'), n: n(1) });
  });

  test('every attribute counts toward the request, those named with an underscore too (the store keeps _version so)', async () => {
    const versioned = (version: number) => [{ Put: { TableName, Item: { ...key('t3'), _version: n(version) } } }];
    expect(await transact({ ClientRequestToken: 'token-3', TransactItems: versioned(1) })).toEqual({ ok: {} });
    expect(await transact({ ClientRequestToken: 'token-3', TransactItems: versioned(2) })).toMatchObject({ name: 'IdempotentParameterMismatchException' });
    expect(await stored('t3')).toEqual({ ...key('t3'), _version: n(1) });
  });

  test('a request that failed leaves its token free', async () => {
    const failing = { ConditionCheck: { TableName, Key: key('t-missing'), ConditionExpression: 'attribute_exists(pk)' } };
    expect(await transact({ ClientRequestToken: 'token-2', TransactItems: [failing] })).toMatchObject({ name: 'TransactionCanceledException' });
    expect(await transact({ ClientRequestToken: 'token-2', TransactItems: [{ Put: { TableName, Item: key('t2') } }] })).toEqual({ ok: {} });
    expect(await stored('t2')).toEqual(key('t2'));
  });
});

describe('limits', () => {
  test('more than 100 actions, two on one item, and a payload over 4 MB are ValidationExceptions as DynamoDB words them', async () => {
    const puts = (count: number, prefix: string, size = 0) =>
      Array.from({ length: count }, (_, i) => ({ Put: { TableName, Item: { ...key(`${prefix}${String(i).padStart(2, '0')}`), v: s('x'.repeat(size)) } } }));
    const tooMany = await transact({ TransactItems: puts(101, 'm') });
    expect(tooMany).toMatchObject({ name: 'ValidationException' });
    expect((tooMany as { message: string }).message).toContain('Member must have length less than or equal to 100');
    expect(await transact({ TransactItems: puts(100, 'm') })).toEqual({ ok: {} });
    expect(
      await transact({ TransactItems: [{ Put: { TableName, Item: key('d1') } }, update('d1', 'SET a = :a', { ExpressionAttributeValues: { ':a': n(1) } })] }),
    ).toEqual({
      name: 'ValidationException',
      message: 'Transaction request cannot include multiple operations on one item',
    });
    // Each Put counts its item's size (DynamoDB's item size: names and values): 4 MB exactly passes.
    const limit = 4 * 1024 * 1024;
    const sized = puts(11, 'p', 380 * 1024);
    const itemSize = (id: string, size: number) => 'pk'.length + 'tx'.length + 'sk'.length + id.length + 'v'.length + size;
    const lastSize = limit - 10 * itemSize('p00', 380 * 1024) - itemSize('p10', 0);
    sized[10].Put.Item.v = s('x'.repeat(lastSize));
    expect(await transact({ TransactItems: sized })).toEqual({ ok: {} });
    sized[10].Put.Item.v = s('x'.repeat(lastSize + 1));
    expect(await transact({ TransactItems: sized })).toEqual({
      name: 'ValidationException',
      message: `Transaction payload size cannot exceed 4MB. Payload Size: ${limit + 1}`,
    });
  });

  test('the capacity is 2 write units per KB of each item', async () => {
    const capacity = async (items: TransactWriteItem[]) =>
      (await client.send(new TransactWriteItemsCommand({ TransactItems: items, ReturnConsumedCapacity: 'TOTAL' }))).ConsumedCapacity;
    expect(await capacity([{ Put: { TableName, Item: key('k1') } }])).toEqual([{ TableName, CapacityUnits: 2 }]);
    expect(await capacity([{ Put: { TableName, Item: { ...key('k2'), v: s('x'.repeat(1500)) } } }])).toEqual([{ TableName, CapacityUnits: 4 }]);
  });
});

describe('concurrency', () => {
  // One transfer as a client of DynamoDB sends it, retried while another transaction holds an
  // item (DynamoDB Local answers TransactionConflict; dynalite queues on its locks instead).
  async function transfer(from: string, to: string, amount: number): Promise<'applied' | 'refused'> {
    for (;;) {
      const answer = await transact({
        TransactItems: [
          update(from, 'ADD balance :minus', {
            ConditionExpression: 'balance >= :amount',
            ExpressionAttributeValues: { ':minus': n(-amount), ':amount': n(amount) },
          }),
          update(to, 'ADD balance :amount', { ExpressionAttributeValues: { ':amount': n(amount) } }),
        ],
      });
      if ('ok' in answer) return 'applied';
      const codes = ((answer as { reasons?: { Code: string }[] }).reasons ?? []).map((r) => r.Code);
      if (codes.includes('TransactionConflict')) continue;
      expect(codes).toEqual(['ConditionalCheckFailed', 'None']);
      return 'refused';
    }
  }

  const balance = async (id: string) => Number((await stored(id))?.balance.N);

  test('50 concurrent transfers of 1 from an account holding 20: exactly 20 apply, the sum is kept, nothing goes negative', async () => {
    await put('a', { balance: n(20) });
    await put('b', { balance: n(0) });
    const answers = await Promise.all(Array.from({ length: 50 }, () => transfer('a', 'b', 1)));
    expect(answers.filter((a) => a === 'applied')).toHaveLength(20);
    expect([await balance('a'), await balance('b')]).toEqual([0, 20]);
  }, 120_000);

  test('transfers both ways at once between two items never interleave: each balance is what the applied ones make it', async () => {
    await put('x', { balance: n(10) });
    await put('y', { balance: n(10) });
    const plan = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? (['x', 'y', 1 + (i % 7)] as const) : (['y', 'x', 1 + (i % 5)] as const)));
    const answers = await Promise.all(plan.map(([from, to, amount]) => transfer(from, to, amount)));
    const moved = plan.reduce((sum, [from, , amount], i) => (answers[i] === 'applied' ? sum + (from === 'x' ? -amount : amount) : sum), 0);
    const [x, y] = [await balance('x'), await balance('y')];
    expect({ x, y }).toEqual({ x: 10 + moved, y: 10 - moved });
    expect(Math.min(x, y)).toBeGreaterThanOrEqual(0);
  }, 120_000);
});
