import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../../../shared/feed/signature';
import { fuzzed } from '../../support/fuzz';

// Every signature is checked as receivers check it: with Standard Webhooks' own library.
const newSecret = (bytes = 32) => `whsec_${randomBytes(bytes).toString('base64')}`;
const now = () => Math.floor(Date.now() / 1000);
const verifies = (secret: string, body: string, headers: Record<string, string>): boolean => {
  try {
    new Webhook(secret).verify(body, headers);
    return true;
  } catch {
    return false;
  }
};

test('the library verifies what is signed, for any id, JSON body and secret length', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), fc.json(), fc.integer({ min: 24, max: 64 }), (id, body, bytes) => {
      const secret = newSecret(bytes);
      expect(verifies(secret, body, { ...signatureHeaders(id, now(), body, secret) })).toBe(true);
    }),
    fuzzed(200, 50),
  );
});

test('the signature is the library’s own for the same id, time and body', () => {
  const secret = newSecret();
  const at = 1_764_230_400;
  const body = '{"type":"order.create","timestamp":"2025-11-27T08:00:00.000Z","data":{"n":1}}';
  expect(signatureHeaders('ev-1', at, body, secret)['webhook-signature']).toBe(new Webhook(secret).sign('ev-1', new Date(at * 1000), body));
  expect(signatureHeaders('ev-1', at, body, secret)).toMatchObject({ 'webhook-id': 'ev-1', 'webhook-timestamp': String(at) });
});

test('while a secret is rotated, a receiver holding either one verifies, one holding neither does not', () => {
  const [old, rotated, stranger] = [newSecret(), newSecret(), newSecret()];
  const body = '{"a":1}';
  const headers = { ...signatureHeaders('ev-2', now(), body, [old, rotated]) };
  expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
  expect(verifies(old, body, headers)).toBe(true);
  expect(verifies(rotated, body, headers)).toBe(true);
  expect(verifies(stranger, body, headers)).toBe(false);
});

test('a changed body, id or timestamp fails verification', () => {
  const secret = newSecret();
  const body = '{"a":1}';
  const t = now();
  const headers = { ...signatureHeaders('ev-3', t, body, secret) };
  expect(verifies(secret, body, headers)).toBe(true);
  expect(verifies(secret, '{"a":2}', headers)).toBe(false);
  expect(verifies(secret, body, { ...headers, 'webhook-id': 'ev-4' })).toBe(false);
  expect(verifies(secret, body, { ...headers, 'webhook-timestamp': String(t - 1) })).toBe(false);
});
