import { entryOf } from '../../../shared/auth/tokens';
import { readConfig, StartupError } from '../../../scripts/local/startup';

// `npm start` reads API_TOKENS as a Lambda does (shared/auth/tokens.ts), and refuses to start on a malformed one.
const configOf = (API_TOKENS: string) => readConfig({ API_TOKENS }, (dir) => dir);

test('the local server takes the same entries: the list form and the object form with its subject and claims', () => {
  const { tokens } = configOf('{"old": ["read"], "t-ann": {"scopes": ["read", "write"], "sub": "ann", "claims": {"tenant": "acme"}}}');
  expect(entryOf(tokens!, 't-ann')).toMatchObject({ sub: 'ann', claims: { tenant: 'acme' } });
  expect(entryOf(tokens!, 'old')).toMatchObject({ claims: {} });
});

test('a malformed entry refuses to start, naming its position and the fix, never its token', () => {
  const raw = '{"t-ok": ["read"], "t-s3cret": {"scopes": ["read"], "sub": "ann", "claims": {"tenant": 7}}}';
  expect(() => configOf(raw)).toThrow(StartupError);
  expect(() => configOf(raw)).toThrow(/^API_TOKENS entry 2 of 2: claims\.tenant: .*; fix API_TOKENS/);
  expect(() => configOf(raw)).not.toThrow(/s3cret/);
});
