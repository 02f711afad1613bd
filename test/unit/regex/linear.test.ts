import { ONEBOT_LIMITS } from '../../../shared/limits';
import { RE2JS } from 're2js';
import { onebotRule } from '../../../shared/models/onebot';
import { checkAgainst } from '../../../shared/models/validate';
import { linearRegex, regexEngine, regexMatches, type RegexEngine } from '../../../shared/regex/linear';
import * as zm from '../../../shared/zod';

let engine: RegexEngine;
beforeAll(async () => {
  engine = await regexEngine();
});

const compiled = (pattern: string): RE2JS => {
  const regex = linearRegex(engine, pattern);
  if (typeof regex === 'string') throw new Error(regex);
  return regex;
};

test.each(['^ping$', '^\\d+\\+\\d+$', '(?:hello|hi) there', '你好.*世界', '(a+)+$', '(a|a)*b', 'a*a*a*a*b', '\\bword\\b', '[^\\s]+@[a-z]+'])(
  '%s is accepted',
  (pattern) => {
    expect(linearRegex(engine, pattern)).toBeInstanceOf(RE2JS);
  },
);

test.each([
  ['a backreference', '(a)\\1'],
  ['a lookahead', 'a(?=b)'],
  ['a lookbehind', '(?<!a)b'],
  ['a huge nested count', '(?:(?:a{1000}){1000}){1000}'],
  ['a syntax error', '(unclosed'],
  ['a pattern over the length limit', 'a'.repeat(ONEBOT_LIMITS.maxRegexLength + 1)],
])('%s is refused with a reason', (_name, pattern) => {
  expect(typeof linearRegex(engine, pattern)).toBe('string');
});

// On a backtracking engine each of these runs for longer than the universe's age; here they return.
test.each([
  ['(a|a)*b', 'a'.repeat(ONEBOT_LIMITS.regexInputChars)],
  ['(a+)+$', `${'a'.repeat(ONEBOT_LIMITS.regexInputChars - 1)}!`],
  ['a*a*a*a*a*b', 'a'.repeat(ONEBOT_LIMITS.regexInputChars)],
])('%s on a hostile text does not match, and returns', (pattern, text) => {
  expect(regexMatches(compiled(pattern), text)).toBe(false);
});

test('only the start of the text is tested', () => {
  const text = `${'x'.repeat(ONEBOT_LIMITS.regexInputChars - 1)}y`;
  expect(regexMatches(compiled('y'), text)).toBe(true);
  expect(regexMatches(compiled('y'), `x${text}`)).toBe(false);
});

test('non-ASCII text matches', () => {
  expect(regexMatches(compiled('^你好.*世界$'), '你好，世界')).toBe(true);
});

describe('a regex rule as the record API validates it', () => {
  const ruleData = (pattern: string) => ({ match: 'regex', pattern, reply: 'r' });

  test('checkAgainst refuses a pattern RE2 cannot run, at the pattern', async () => {
    expect((await checkAgainst(onebotRule.schema, ruleData('(a)\\1'), ['data'])).details).toEqual([
      { path: 'data.pattern', message: expect.stringMatching(/^not a regex that runs in linear time/) },
    ]);
    expect((await checkAgainst(onebotRule.schema, ruleData('^\\d+$'), ['data'])).details).toEqual([]);
  });

  // Issue 24: the engine is a chunk of its own, loaded by the first pattern to check, so a
  // function that validates only other models (reaction) never pays for it at all.
  test('the engine is loaded by the first regex rule validated, which is judged as any later one', async () => {
    await jest.isolateModulesAsync(async () => {
      const linear = await import('../../../shared/regex/linear');
      const validate = await import('../../../shared/models/validate');
      const models = { ...(await import('../../../shared/models/onebot')), ...(await import('../../../shared/models/reaction')) };
      expect(await validate.checkAgainst(models.reaction.schema, { user_id: 1, content: '+1' }, ['data'])).toEqual({
        value: { user_id: 1, content: '+1' },
        details: [],
      });
      expect(await validate.checkAgainst(models.onebotRule.schema, { match: 'exact', pattern: 'x', reply: 'r' }, ['data'])).toMatchObject({ details: [] });
      expect(linear.loadedRegexEngine()).toBeUndefined();
      expect((await validate.checkAgainst(models.onebotRule.schema, ruleData('(a)\\1'), ['data'])).details).toEqual([
        { path: 'data.pattern', message: expect.stringMatching(/^not a regex that runs in linear time/) },
      ]);
      expect(linear.loadedRegexEngine()).toBeDefined();
    });
  });

  test('outside checkAgainst a regex rule is refused, never let through unchecked', () => {
    expect(zm.safeParse(onebotRule.schema, ruleData('^\\d+$')).success).toBe(false);
    expect(zm.safeParse(onebotRule.schema, { match: 'exact', pattern: 'x', reply: 'r' }).success).toBe(true);
  });
});

// What docs/onebot.md tells rule authors about RE2's syntax, each as a rule would see it.
test.each([
  ['(?i) makes a pattern case-insensitive', '(?i)^hello$', 'HeLLo', true],
  ['\\p{Han} matches Chinese characters', '^\\p{Han}+$', '你好', true],
  ['\\s is ASCII whitespace: a tab matches', 'a\\sb', 'a\tb', true],
  ['\\s is ASCII whitespace: the ideographic space U+3000 does not', 'a\\sb', 'a\u3000b', false],
  ['. does not match \\n', '^a.b$', 'a\nb', false],
  ['. matches \\r', '^a.b$', 'a\rb', true],
  ['a count of 1000 is allowed', '^a{1000}$', 'a'.repeat(1000), true],
] as const)('%s', (_name, pattern, text, matches) => {
  expect(regexMatches(compiled(pattern), text)).toBe(matches);
});

test('a count over 1000 is refused', () => {
  expect(typeof linearRegex(engine, 'a{1001}')).toBe('string');
});
