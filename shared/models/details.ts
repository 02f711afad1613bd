import type * as zm from '../zod';

/** One problem with one part of a request: `path` is a dotted path into the body. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export function pathText(path: ReadonlyArray<PropertyKey>): string {
  return path.map(String).join('.');
}

/**
 * zod's issues as details, each path behind `prefix`: the one conversion for request bodies,
 * record data and OneBot events. An unknown-keys issue names each key on its own line, so a
 * caller sees where every stray property is.
 */
export function issueDetails(issues: ReadonlyArray<zm.core.$ZodIssue>, prefix: ReadonlyArray<PropertyKey> = []): ErrorDetail[] {
  return issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: pathText([...prefix, ...issue.path, key]), message: `unknown property ${JSON.stringify(key)}` }))
      : [{ path: pathText([...prefix, ...issue.path]), message: issue.message }],
  );
}
