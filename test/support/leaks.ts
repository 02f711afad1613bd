/**
 * What an answer must never show: a stack frame (`at fn (`, `at file:line:column`), a file of
 * ours or of a package, an exception class, or the SDK's expression errors. A frame needs its
 * column: an error message may echo a field path such as `filters.a:0`.
 */
export const LEAKS =
  /\bat \S+ \(|\bat (?:async )?\S+:\d+:\d+|Exception|node_modules|\/work\/|\.ts:\d+|ExpressionAttribute|Invalid (?:Key|Update|Filter|Condition)Expression/;
