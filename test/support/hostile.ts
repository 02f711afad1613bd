/**
 * What an answer must never show: a stack frame (`at fn (`, `at file:line:column`), a file of
 * ours or of a package, an exception class, or the SDK's expression errors. A frame needs its
 * column: an error message may echo a field path such as `filters.a:0`.
 */
export const LEAKS =
  /\bat \S+ \(|\bat (?:async )?\S+:\d+:\d+|Exception|node_modules|\/work\/|\.ts:\d+|ExpressionAttribute|Invalid (?:Key|Update|Filter|Condition)Expression/;

/** The two ways JSON nests, as an opening and a closing run: arrays, and objects of one key. */
export const NESTINGS = [
  ['[', ']'],
  ['{"a":', '}'],
] as const;

/** `inner` wrapped `levels` deep in `open`...`close`, as text, so depth is not bounded by JSON.stringify's stack. */
export const deep = (levels: number, open: string, close: string, inner = '1') => open.repeat(levels) + inner + close.repeat(levels);
