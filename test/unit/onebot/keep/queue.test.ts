import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_INLINE_BODY_BYTES, queueMessage } from '../../../../shared/onebot/keep/queue';
import { keptDelivery } from '../../../../shared/onebot/keep/kept';

process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'recordgate-queue-'));
const headers = { 'x-self-id': '10001', 'user-agent': 'CQHttp/4.15.0', 'content-type': 'application/json', 'x-signature': 'sha1=00' };

test('a queued delivery carries the exact bytes, the headers read after verification and the receive time', async () => {
  const rawBody = Buffer.from('{"post_type":"notice","x":"\\u003c"}\n');
  const params = await queueMessage('https://sqs/q', { id: 'delivery-1', rawBody, headers, receivedAt: '2026-01-01T00:00:00.000Z', signed: true, late: false });
  const kept = keptDelivery.parse(JSON.parse(params.MessageBody!));
  expect(params.QueueUrl).toBe('https://sqs/q');
  expect(Buffer.from(kept.body!, 'base64').equals(rawBody)).toBe(true);
  // The signature was checked before keeping; it is not kept.
  expect(kept.headers).toEqual({ 'x-self-id': '10001', 'user-agent': 'CQHttp/4.15.0', 'content-type': 'application/json' });
  expect(kept.received_at).toBe('2026-01-01T00:00:00.000Z');
  // The delivery keeps its id to storage: a replay after a lost answer finds the record it made.
  expect(kept).toMatchObject({ delivery_id: 'delivery-1', signed: true });
  expect(kept.late).toBeUndefined();
});

test('a delivery answered late says so in its message: a re-send of it is merged once it is stored', async () => {
  const rawBody = Buffer.from('{"post_type":"notice"}');
  const params = await queueMessage('https://sqs/q', { id: 'delivery-2', rawBody, headers, receivedAt: '2026-01-01T00:00:00.000Z', signed: false, late: true });
  expect(keptDelivery.parse(JSON.parse(params.MessageBody!)).late).toBe(true);
});

test('a body too big for a message goes to the blob store and the message points at it', async () => {
  const rawBody = Buffer.from(JSON.stringify({ post_type: 'notice', big: 'x'.repeat(MAX_INLINE_BODY_BYTES) }));
  const params = await queueMessage('https://sqs/q', { id: 'delivery-1', rawBody, headers, receivedAt: '2026-01-01T00:00:00.000Z', signed: true, late: false });
  const kept = keptDelivery.parse(JSON.parse(params.MessageBody!));
  expect(kept.body).toBeUndefined();
  expect(kept.body_ref).toMatch(/^file:onebot-deliveries\//);
  expect(readFileSync(join(process.env.DATA_DIR!, kept.body_ref!.slice(5))).equals(rawBody)).toBe(true);
  expect(params.MessageBody!.length).toBeLessThan(1024);
});
