import type { WriteCall, WriteRule } from './steerable-proxy';

/**
 * Rules that pick the writes a steerable proxy's fault hits (test/support/steerable-proxy.ts),
 * by the items they name: a model's records (`<model>#<shard>` partitions) or the service's
 * idempotency keys.
 */
type Key = WriteCall['keys'][number];

/** Whether a key is a record's, of the reaction model unless another is named. */
export const isRecord = (key: Key) => isRecordOf('reaction')(key);
export const isRecordOf = (model: string) => (key: Key) => key.pk.startsWith(`${model}#`);
export const isKeyItem = (key: Key) => key.pk.startsWith('_idempotency#');

/** Writes of these records of the model (a write of a key item or of another record is not one). */
export const touching = (ids: Iterable<string>, model = 'reaction'): WriteRule => {
  const chosen = new Set(ids);
  const ofModel = isRecordOf(model);
  return (w) => w.keys.some((k) => ofModel(k) && chosen.has(k.sk));
};

/** The `n`th write `rule` picks (counted from 1) and every one after it. */
export const fromNth = (n: number, rule: WriteRule): WriteRule => {
  let seen = 0;
  return (w) => rule(w) && ++seen >= n;
};

/** Writes any of the rules picks; every rule sees every write, so that each one's count stays right. */
export const either =
  (...rules: WriteRule[]): WriteRule =>
  (w) =>
    rules.map((rule) => rule(w)).some(Boolean);
