import { NumberValue } from '@aws-sdk/lib-dynamodb';
import * as zm from '../zod';
import { dynamoNumberProblem } from '../json/decimal';
import { isJsonObject, numberText } from '../json/exact-json';
import { UNSTORABLE_KEYS } from '../json/storable';
import { LIMITS } from '../limits';
import { linearRegex, loadedRegexEngine, regexEngine, type RegexEngine } from '../regex/linear';
import { issueDetails, pathText, type ErrorDetail } from './details';
import { withPatternCheck, type PatternCheck } from './pattern-check';

/**
 * zod checks numbers as JS numbers, so it validates a copy in which exact numbers are
 * approximated; numbers DynamoDB cannot store are reported here instead of as a 500 later.
 */
function approximate(value: unknown, path: PropertyKey[], problems: ErrorDetail[], depth = 0): unknown {
  if (typeof value === 'number' || value instanceof NumberValue) {
    const problem = dynamoNumberProblem(numberText(value));
    if (problem) problems.push({ path: pathText(path), message: `number ${problem}` });
    return typeof value === 'number' ? value : Number(value.toString());
  }
  if ((Array.isArray(value) || isJsonObject(value)) && depth >= LIMITS.maxStoredDepth) {
    problems.push({ path: pathText(path), message: `nested deeper than ${LIMITS.maxStoredDepth} levels, which DynamoDB cannot store` });
    return undefined;
  }
  if (Array.isArray(value)) return value.map((v, i) => approximate(v, [...path, i], problems, depth + 1));
  if (isJsonObject(value)) {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE_KEYS.has(k)) problems.push({ path: pathText([...path, k]), message: `the key ${JSON.stringify(k)} cannot be stored` });
      Object.defineProperty(copy, k, { value: approximate(v, [...path, k], problems, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }
  return value;
}

/** Puts the exact numbers of the input back where zod's output kept the same value. */
function restore(original: unknown, parsed: unknown): unknown {
  if (original instanceof NumberValue && typeof parsed === 'number' && Number(original.toString()) === parsed) return original;
  if (Array.isArray(original) && Array.isArray(parsed)) return parsed.map((v, i) => restore(original[i], v));
  if (isJsonObject(original) && isJsonObject(parsed)) {
    for (const k of Object.keys(parsed)) {
      if (Object.hasOwn(original, k)) parsed[k] = restore(original[k], parsed[k]);
    }
  }
  return parsed;
}

/** Why a pattern cannot be a regex rule: RE2 refuses it, as the receiver would when it runs it. */
const linearPatternProblem =
  (engine: RegexEngine): PatternCheck =>
  (pattern) => {
    const regex = linearRegex(engine, pattern);
    return typeof regex === 'string' ? regex : undefined;
  };

/**
 * Issues of `value` against `schema`, each with its path behind `prefix`; empty when valid.
 * A parse is synchronous and the RE2 engine is loaded on first use: until it is, a parse that
 * meets a regex pattern notes it and is run again once the engine is loaded, so a model that
 * checks no pattern (reaction) never loads the engine, and no pattern is judged without it.
 */
export async function checkAgainst<S extends zm.core.$ZodType>(
  schema: S,
  value: unknown,
  prefix: PropertyKey[],
): Promise<{ value?: zm.infer<S>; details: ErrorDetail[] }> {
  const details: ErrorDetail[] = [];
  const shadow = approximate(value, prefix, details);
  const parse = (check: PatternCheck) => withPatternCheck(check, () => zm.safeParse(schema, shadow));
  const engine = loadedRegexEngine();
  let engineNeeded = false;
  const awaitingEngine: PatternCheck = () => {
    engineNeeded = true;
    return 'the regex engine is loading';
  };
  let result = parse(engine ? linearPatternProblem(engine) : awaitingEngine);
  if (engineNeeded) result = parse(linearPatternProblem(await regexEngine()));
  if (!result.success) details.push(...issueDetails(result.error.issues, prefix));
  if (details.length > 0) return { details };
  return { value: restore(value, result.data) as zm.infer<S>, details };
}
