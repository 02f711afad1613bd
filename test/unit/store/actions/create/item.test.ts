import * as z from 'zod';
import { defineModel } from '../../../../../shared/models/define';
import { storedItem } from '../../../../../shared/store/actions/create/item';
import { shardOf } from '../../../../../shared/store/keys';
import { servingCaller, withinInvocation } from '../../../../../shared/invocation';
import { noteModel } from '../../../../support/models';

const note = noteModel('note', 4);
const NOW = '2026-11-23T10:00:00.000Z';
const item = storedItem(note, { id: 'n1', data: { title: 'Hello', rank: 5 } }, NOW, 'token-1');

describe('storedItem', () => {
  test('holds keys, index attributes, data, system fields and the write token', () => {
    const shard = shardOf(note, 'n1');
    expect(item).toEqual({
      pk: `note#${shard}`,
      sk: 'n1',
      g1pk: `note#rank#${shard}`,
      // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 separates the index key's parts
      g1sk: expect.stringMatching(/\u0000n1$/),
      g2pk: `note#title#${shard}`,
      g2sk: '"Hello\u0000n1',
      id: 'n1',
      d: { title: 'Hello', rank: 5 },
      _created_at: NOW,
      _updated_at: NOW,
      _version: 1,
      _w: 'token-1',
      // Outside an invocation no request or caller makes it.
      _rq: null,
      _by: null,
    });
  });

  test('draws a fresh write token when none is given', () => {
    const a = storedItem(note, { id: 'n1', data: { title: 'a' } }, NOW);
    const b = storedItem(note, { id: 'n1', data: { title: 'a' } }, NOW);
    expect(a._w).toEqual(expect.any(String));
    expect(a._w).not.toBe(b._w);
  });

  test('an indexed field the record lacks still gets its index keys, so the record is listed when ordering by it', () => {
    const bare = storedItem(note, { id: 'n2', data: { title: 'x' } }, NOW, 't');
    expect(bare.g1sk).toBe('!\u0000n2');
  });

  test('a model with a ttl field stamps its whole seconds as the expiry, a record without the field none; a model without one stamps none', () => {
    const kept = defineModel({ name: 'kept', description: 'test', schema: z.strictObject({ until: z.number().optional() }), ttl: 'until' });
    expect(storedItem(kept, { id: 'k', data: { until: 1_800_000_000 } }, NOW, 't')._ttl).toBe(1_800_000_000);
    expect(storedItem(kept, { id: 'k', data: { until: 1_800_000_000.9 } }, NOW, 't')._ttl).toBe(1_800_000_000);
    expect(storedItem(kept, { id: 'k', data: {} }, NOW, 't')).not.toHaveProperty('_ttl');
    expect(item).not.toHaveProperty('_ttl');
  });
});

test('under an Idempotency-Key the item remembers the run; otherwise it holds no runs', () => {
  expect(storedItem(note, { id: 'n3', data: { title: 'z' } }, NOW, 'op.0', ['op'])._k).toEqual(['op']);
  expect(item).not.toHaveProperty('_k');
});

test('inside an invocation whose caller is known, the item names the request and the caller for the change feed', async () => {
  const stamped = await withinInvocation({ awsRequestId: 'req-1' }, async () => {
    servingCaller('token:digest');
    return storedItem(note, { id: 'n1', data: { title: 'a' } }, NOW, 't');
  });
  expect([stamped._rq, stamped._by]).toEqual(['req-1', 'token:digest']);
});
