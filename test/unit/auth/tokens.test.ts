import { parseTokenTable, scopesOf, TokenConfigError } from '../../../shared/auth/tokens';

const table = parseTokenTable(JSON.stringify({ reader: ['read'], writer: ['read', 'write'], root: ['read', 'write', 'admin'] }));

test('a known token gets exactly its scopes', () => {
  expect([...scopesOf(table, 'reader')!]).toEqual(['read']);
  expect([...scopesOf(table, 'writer')!].sort()).toEqual(['read', 'write']);
  expect([...scopesOf(table, 'root')!].sort()).toEqual(['admin', 'read', 'write']);
});

test.each(['', 'Reader', 'reade', 'readerr', 'reader ', 'root\u0000', 'r\u00e9ader'])('%j is not a token', (token) => {
  expect(scopesOf(table, token)).toBeUndefined();
});

test.each([
  ['not json', 'not valid JSON'],
  ['[]', 'JSON object'],
  ['{"t": "read"}', 'JSON object'],
  ['{"t": []}', 'JSON object'],
  ['{"t": ["delete"]}', 'JSON object'],
  ['{"": ["read"]}', 'JSON object'],
  ['{"a b": ["read"]}', 'JSON object'],
])('%s is refused as a token table', (raw, message) => {
  expect(() => parseTokenTable(raw)).toThrow(TokenConfigError);
  expect(() => parseTokenTable(raw)).toThrow(message);
});
