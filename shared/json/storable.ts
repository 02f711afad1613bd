import { NumberValue } from '@aws-sdk/lib-dynamodb';

/**
 * Keys that cannot be stored as sent: DynamoDB refuses an empty attribute name, the SDK's
 * marshaller assigns `__proto__` (the key is lost, the map's prototype replaced) and takes an
 * object with its own `constructor` for a class instance (it throws). Each was a 500 or a
 * record stored altered, so such data is refused before it reaches the SDK.
 */
export const UNSTORABLE_KEYS: ReadonlySet<string> = new Set(['', '__proto__', 'constructor']);

/** The dotted path of the first unstorable key in `value`, or undefined. */
export function unstorableKeyPath(value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, '']];
  while (pending.length > 0) {
    const [node, path] = pending.pop()!;
    if (typeof node !== 'object' || node === null || node instanceof NumberValue) continue;
    for (const [key, child] of Object.entries(node)) {
      const at = path ? `${path}.${key}` : key;
      if (UNSTORABLE_KEYS.has(key)) return at;
      pending.push([child, at]);
    }
  }
  return undefined;
}
