import fc from 'fast-check';
import { entryOf, parseTokenTable, TokenConfigError } from '../../../shared/auth/tokens';

const table = parseTokenTable(
  JSON.stringify({
    reader: ['read'],
    writer: ['read', 'write'],
    root: ['read', 'write', 'admin'],
    ann: { scopes: ['read', 'write'], sub: 'u1', claims: { tenant: 'acme', plan: 'pro' } },
    bot: { scopes: ['read'] },
  }),
);

test('a known token gets exactly its scopes', () => {
  expect([...entryOf(table, 'reader')!.scopes]).toEqual(['read']);
  expect([...entryOf(table, 'writer')!.scopes].sort()).toEqual(['read', 'write']);
  expect([...entryOf(table, 'root')!.scopes].sort()).toEqual(['admin', 'read', 'write']);
});

test('an entry in the object form carries its subject and claims; the list form and a bare object carry none', () => {
  expect(entryOf(table, 'ann')).toMatchObject({ scopes: new Set(['read', 'write']), sub: 'u1', claims: { tenant: 'acme', plan: 'pro' } });
  expect(entryOf(table, 'bot')).toMatchObject({ scopes: new Set(['read']), claims: {} });
  expect(entryOf(table, 'bot')!.sub).toBeUndefined();
  expect(entryOf(table, 'reader')).toMatchObject({ claims: {} });
  expect(entryOf(table, 'reader')!.sub).toBeUndefined();
});

test.each(['', 'Reader', 'reade', 'readerr', 'reader ', 'root\u0000', 'r\u00e9ader', 'u1', 'acme'])('%j is not a token', (token) => {
  expect(entryOf(table, token)).toBeUndefined();
});

test.each([
  ['not json', 'not valid JSON'],
  ['[]', 'JSON object'],
  ['null', 'JSON object'],
])('%s is refused as a token table', (raw, message) => {
  expect(() => parseTokenTable(raw)).toThrow(TokenConfigError);
  expect(() => parseTokenTable(raw)).toThrow(message);
});

// Each refusal names the entry by its position, never by its token: the message reaches logs.
test.each([
  ['{"ok": ["read"], "t0ken-a": "read"}', 'entry 2 of 2'],
  ['{"t0ken-a": []}', 'entry 1 of 1: scopes'],
  ['{"ok": ["read"], "t0ken-a": ["delete"]}', 'entry 2 of 2: scopes'],
  ['{"": ["read"]}', 'entry 1 of 1: the token'],
  ['{"t0ken a": ["read"]}', 'entry 1 of 1: the token'],
  ['{"t0ken-a": {"sub": "u1"}}', 'entry 1 of 1: scopes'],
  ['{"t0ken-a": {"scopes": ["read"], "sub": ""}}', 'entry 1 of 1: sub'],
  ['{"t0ken-a": {"scopes": ["read"], "sub": 7}}', 'entry 1 of 1: sub'],
  ['{"t0ken-a": {"scopes": ["read"], "claims": {"tenant": 7}}}', 'entry 1 of 1: claims.tenant'],
  ['{"t0ken-a": {"scopes": ["read"], "claims": {"tenant": ""}}}', 'entry 1 of 1: claims.tenant'],
  ['{"t0ken-a": {"scopes": ["read"], "claims": {"tenant": ["acme"]}}}', 'entry 1 of 1: claims.tenant'],
  ['{"t0ken-a": {"scopes": ["read"], "claims": {"sub": "u2"}}}', 'entry 1 of 1: claims'],
  ['{"t0ken-a": {"scopes": ["read"], "claims": {"a b": "x"}}}', 'entry 1 of 1: claims'],
  ['{"t0ken-a": {"scopes": ["read"], "claims": ["acme"]}}', 'entry 1 of 1: claims'],
  ['{"t0ken-a": {"scopes": ["read"], "claim": {"tenant": "acme"}}}', 'entry 1 of 1'],
])('%s is refused, naming %s and never the token', (raw, where) => {
  let error: unknown;
  try {
    parseTokenTable(raw);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(TokenConfigError);
  expect((error as Error).message).toContain(`API_TOKENS ${where}`);
  expect((error as Error).message).not.toMatch(/t0ken/);
});

test('the old list form and the object form mix in one table', () => {
  const mixed = parseTokenTable('{"a": ["read"], "b": {"scopes": ["write"], "sub": "u2"}}');
  expect(entryOf(mixed, 'a')).toMatchObject({ scopes: new Set(['read']), claims: {} });
  expect(entryOf(mixed, 'b')).toMatchObject({ scopes: new Set(['write']), sub: 'u2' });
});

describe('any table of both forms', () => {
  const scopes = fc.uniqueArray(fc.constantFrom('read', 'write', 'admin'), { minLength: 1 });
  const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
  const claimName = fc.stringMatching(/^[\x21-\x7e]{1,16}$/).filter((name) => name !== 'sub');
  const entry = fc.oneof(scopes, fc.record({ scopes, sub: text, claims: fc.dictionary(claimName, text, { maxKeys: 4 }) }, { requiredKeys: ['scopes'] }));
  const token = fc.stringMatching(/^\S{1,40}$/);

  test('each token finds its own entry (scopes, sub, and claims with sub among them), and no other string finds one', () => {
    fc.assert(
      fc.property(fc.dictionary(token, entry, { minKeys: 1, maxKeys: 8 }), fc.array(fc.string(), { maxLength: 5 }), (raw, strangers) => {
        const table = parseTokenTable(JSON.stringify(raw));
        for (const [tok, sent] of Object.entries(raw)) {
          const found = entryOf(table, tok)!;
          const expected = Array.isArray(sent)
            ? { scopes: sent, claims: {} }
            : { scopes: sent.scopes, sub: sent.sub, claims: { ...sent.claims, ...(sent.sub === undefined ? {} : { sub: sent.sub }) } };
          expect({ scopes: [...found.scopes], sub: found.sub, claims: { ...found.claims } }).toEqual(expected);
        }
        for (const stranger of strangers) if (!Object.hasOwn(raw, stranger)) expect(entryOf(table, stranger)).toBeUndefined();
      }),
    );
  });
});
