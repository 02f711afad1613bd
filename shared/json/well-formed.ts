import { NumberValue } from '@aws-sdk/lib-dynamodb';

/**
 * The path of the first string (a value or a key) in a parsed body that holds an unpaired
 * surrogate, or undefined. JSON's `\ud800` escapes make such strings, UTF-8 cannot encode them,
 * and the SDK writes each as U+FFFD: "s\ud800", "s\udfff" and "s\ufffd" would all be stored as
 * the same id. Nothing of the sort may reach DynamoDB.
 */
// In a /u regex a paired surrogate is one code point; only an unpaired half is category Cs.
const UNPAIRED_SURROGATE = /\p{Cs}/u;

export function illFormedPath(value: unknown): PropertyKey[] | undefined {
  const pending: Array<[unknown, PropertyKey[]]> = [[value, []]];
  while (pending.length > 0) {
    const [node, path] = pending.pop()!;
    if (typeof node === 'string') {
      if (UNPAIRED_SURROGATE.test(node)) return path;
    } else if (Array.isArray(node)) {
      node.forEach((child, i) => {
        pending.push([child, [...path, i]]);
      });
    } else if (typeof node === 'object' && node !== null && !(node instanceof NumberValue)) {
      for (const [key, child] of Object.entries(node)) {
        if (UNPAIRED_SURROGATE.test(key)) return [...path, key];
        pending.push([child, [...path, key]]);
      }
    }
  }
  return undefined;
}
