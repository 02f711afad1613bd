/** Why a pattern cannot be a regex rule, or undefined when it can. */
export type PatternCheck = (pattern: string) => string | undefined;

let current: PatternCheck | undefined;

/**
 * Runs a validation with `check` as the regex check of the models it validates. The check needs
 * the RE2 engine (~150 KiB, shared/regex/linear.ts), loaded on first use; shared/models/validate.ts
 * passes it, so a function that serves the OneBot models without validating a rule (get_one,
 * list, models, health...) never loads it. zod has no per-parse context and a parse is
 * synchronous, so the check is carried by a variable set for the parse's duration.
 */
export function withPatternCheck<T>(check: PatternCheck, run: () => T): T {
  const outer = current;
  current = check;
  try {
    return run();
  } finally {
    current = outer;
  }
}

/** The pattern's problem. Validated outside checkAgainst there is no engine to ask: refused, never let through unchecked. */
export function patternProblem(pattern: string): string | undefined {
  return current ? current(pattern) : 'a regex pattern is checked by checkAgainst (shared/models/validate.ts), which runs it on RE2';
}
