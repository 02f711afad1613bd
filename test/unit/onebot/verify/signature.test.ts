import { signatureMatches } from '../../../../shared/onebot/verify/signature';

// Computed with Python's hmac over the secret's UTF-8 bytes, independently of the code under test.
const SECRET = 'clé-秘密-🔑';
const BODY = Buffer.from('{"post_type":"meta_event"}');
const HEX = '3b7b0505eacda5fa5b8806e733590de2164a19c2';

test.each([
  [`sha1=${HEX}`, true],
  [`sha1=${HEX.toUpperCase()}`, true],
  [`SHA1=${HEX}`, false],
  [`Sha1=${HEX}`, false],
  [` sha1=${HEX} `, true],
  [HEX, false],
  [`sha1=${HEX.slice(0, 38)}`, false],
  [`sha1=${HEX}00`, false],
  [`sha1=${HEX.replace('3', '4')}`, false],
  [`sha256=${HEX}`, false],
  [`sha1=${'z'.repeat(40)}`, false],
  ['', false],
])('%j matches: %s', (header, expected) => {
  expect(signatureMatches(SECRET, BODY, header)).toBe(expected);
});

test('the HMAC covers the exact bytes: an equivalent JSON text does not match', () => {
  expect(signatureMatches(SECRET, Buffer.from('{"post_type": "meta_event"}'), `sha1=${HEX}`)).toBe(false);
});
