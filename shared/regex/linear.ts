import type { RE2JS } from 're2js';
import { ONEBOT_LIMITS } from '../limits';
import { loadOnce } from '../load-once';

/*
 * Regex rules run on RE2 (re2js, RE2's JavaScript port), whose automata match in time linear
 * in the text whatever the pattern's shape: a syntactic guard is not enough (star height 1
 * still allows `(a|a)*b`, exponential on a backtracking engine, and `a*a*a*b`, n^4 — measured
 * at 3 s on 256 characters). RE2's syntax has no construct that needs backtracking
 * (backreferences, lookaround) and caps counted repetitions at 1000; a pattern it cannot
 * compile is refused as a rule.
 */

/** The RE2 engine, once loaded: compiling a pattern takes it, so nothing compiles one without it. */
export type RegexEngine = typeof import('re2js');

let loaded: RegexEngine | undefined;

/**
 * The engine (~150 KiB), loaded by the first call through `import()`, which esbuild makes a
 * chunk of its own: a cold start loads none of it, and a function that never compiles a pattern
 * never does (issue 24). A failed load is thrown to the caller and tried again by the next call.
 */
export const regexEngine = loadOnce(() =>
  import('re2js').then((engine) => {
    loaded = engine;
    return engine;
  }),
);

/** The engine if an earlier `regexEngine()` loaded it; for a synchronous caller that can await it and try again. */
export const loadedRegexEngine = (): RegexEngine | undefined => loaded;

const compiled = new Map<string, RE2JS | string>();

/** The compiled linear-time regex, or why the pattern is refused. */
export function linearRegex(engine: RegexEngine, pattern: string): RE2JS | string {
  if (pattern.length > ONEBOT_LIMITS.maxRegexLength) return `a regex pattern has at most ${ONEBOT_LIMITS.maxRegexLength} characters`;
  let hit = compiled.get(pattern);
  if (hit === undefined) {
    try {
      hit = engine.RE2JS.compile(pattern);
    } catch (error) {
      hit = `not a regex that runs in linear time (RE2 syntax: no backreferences or lookaround, counts up to 1000): ${(error as Error).message}`;
    }
    if (compiled.size >= ONEBOT_LIMITS.maxRules) compiled.clear();
    compiled.set(pattern, hit);
  }
  return hit;
}

/** Whether the pattern matches anywhere in the start of `text` (regexInputChars characters). */
export function regexMatches(regex: RE2JS, text: string): boolean {
  return regex.matcher(text.slice(0, ONEBOT_LIMITS.regexInputChars)).find();
}
