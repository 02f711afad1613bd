import { createHmac } from 'node:crypto';
import { verifyDelivery } from '../../../../shared/onebot/verify/verify';

const BODY = Buffer.from('{"post_type":"notice","self_id":10001}');
const sign = (secret: string, body: Buffer) => `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`;
const refused = (code: string, status: number) => expect.objectContaining({ code, status });

afterEach(() => {
  delete process.env.ONEBOT_SECRET;
  delete process.env.ONEBOT_SELF_IDS;
});

test('without a secret or an allow-list, any bot that says who it is is verified, unsigned', async () => {
  expect(await verifyDelivery({ 'x-self-id': '10001' }, BODY)).toEqual({ event: { post_type: 'notice', self_id: 10001 }, signed: false });
  await expect(verifyDelivery({}, BODY)).rejects.toEqual(refused('invalid_request', 400));
  await expect(verifyDelivery({ 'x-self-id': ' ' }, BODY)).rejects.toEqual(refused('invalid_request', 400));
});

test('with a secret, the signature over the exact bytes is required (401 missing, 403 wrong) before the body is read', async () => {
  process.env.ONEBOT_SECRET = 's3cret';
  expect((await verifyDelivery({ 'x-self-id': '10001', 'x-signature': sign('s3cret', BODY) }, BODY)).signed).toBe(true);
  await expect(verifyDelivery({ 'x-self-id': '10001' }, BODY)).rejects.toEqual(refused('unauthorized', 401));
  await expect(verifyDelivery({ 'x-self-id': '10001', 'x-signature': sign('other', BODY) }, BODY)).rejects.toEqual(refused('forbidden', 403));
  // A body that is no event, wrongly signed, is refused for its signature: nothing unverified is parsed.
  const junk = Buffer.from('not json');
  await expect(verifyDelivery({ 'x-self-id': '10001', 'x-signature': sign('other', junk) }, junk)).rejects.toEqual(refused('forbidden', 403));
  await expect(verifyDelivery({ 'x-self-id': '10001', 'x-signature': sign('s3cret', junk) }, junk)).rejects.toEqual(refused('malformed_json', 400));
});

test('the allow-list holds for the header and for the bot the event names', async () => {
  process.env.ONEBOT_SELF_IDS = '10001,10002';
  expect((await verifyDelivery({ 'x-self-id': '10001' }, BODY)).event.self_id).toBe(10001);
  await expect(verifyDelivery({ 'x-self-id': '10003' }, BODY)).rejects.toEqual(refused('forbidden', 403));
  await expect(verifyDelivery({ 'x-self-id': '10002' }, BODY)).rejects.toEqual(refused('forbidden', 403));
});
