import { setFlagsFromString } from 'node:v8';
import { ONEBOT_LIMITS } from '../limits';

/*
 * Regex rules run on V8's linear-time engine (the `l` flag), so no pattern can backtrack
 * catastrophically, whatever its shape: a syntactic guard is not enough (star height 1 still
 * allows `(a|a)*b`, exponential, and `a*a*a*b`, n^4 — measured at 3 s on 256 characters).
 * The engine is behind a V8 flag that is only read when a regex is compiled, so turning it on
 * here is safe; it refuses what it cannot run in linear time (backreferences, lookaround,
 * the `i` and `u` modes, huge counted repetitions), and such a pattern is refused as a rule.
 */
setFlagsFromString('--enable-experimental-regexp-engine');

const compiled = new Map<string, RegExp | string>();

/** The compiled linear-time regex, or why the pattern is refused. */
export function linearRegex(pattern: string): RegExp | string {
  if (pattern.length > ONEBOT_LIMITS.maxRegexLength) return `a regex pattern has at most ${ONEBOT_LIMITS.maxRegexLength} characters`;
  let hit = compiled.get(pattern);
  if (hit === undefined) {
    try {
      hit = new RegExp(pattern, 'l');
    } catch (error) {
      hit = `not a regex that runs in linear time (no backreferences, lookaround or unicode classes): ${(error as Error).message}`;
    }
    if (compiled.size >= ONEBOT_LIMITS.maxRules) compiled.clear();
    compiled.set(pattern, hit);
  }
  return hit;
}

/** Whether the start of `text` (regexInputChars characters) matches. */
export function regexMatches(regex: RegExp, text: string): boolean {
  return regex.test(text.slice(0, ONEBOT_LIMITS.regexInputChars));
}
