import { bearerToken } from '../../../shared/auth/bearer';

test.each([
  [{ authorization: 'Bearer s3cr3t' }, 's3cr3t'],
  [{ Authorization: 'bearer s3cr3t' }, 's3cr3t'],
  [{ authorization: 'BEARER \ts3cr3t  ' }, 's3cr3t'],
  [{ authorization: 'Bearer abc.def-ghi_~+/=' }, 'abc.def-ghi_~+/='],
])('reads the token of %j', (headers, token) => {
  expect(bearerToken(headers)).toBe(token);
});

test.each([
  [undefined],
  [{}],
  [{ authorization: '' }],
  [{ authorization: 'Bearer' }],
  [{ authorization: 'Bearer ' }],
  [{ authorization: 'Basic czNjcjN0' }],
  [{ authorization: 'Bearer two tokens' }],
  [{ authorization: 's3cr3t' }],
  [{ 'x-authorization': 'Bearer s3cr3t' }],
])('finds no token in %j', (headers) => {
  expect(bearerToken(headers)).toBeUndefined();
});
