import type { Caller } from '../auth/authorize';
import { loadOnce } from '../load-once';
import type { Model } from '../models/model';
import { hasFieldRules, hasRowRules } from '../models/has-rules';
import type { Reach } from '../store/types';

// A chunk of its own, loaded by the first request to a model with rules: a model without any,
// the most common, costs a cold start nothing of them (issue 33's budget: 5 KiB).
const rules = loadOnce(() => import('./rules'));

const NONE: ReadonlySet<string> = new Set();

/** What the caller reaches of the model (rules.ts reachOf); undefined for a model without row rules, or the service. */
export async function reachFor(model: Model, caller: Caller | undefined): Promise<Reach | undefined> {
  return caller && hasRowRules(model) ? (await rules()).reachOf(model, caller) : undefined;
}

/** The fields hidden from the caller (rules.ts hiddenFields); none for a model without field rules. */
export async function hiddenFor(model: Model, caller: Caller | undefined): Promise<ReadonlySet<string>> {
  return hasFieldRules(model) ? (await rules()).hiddenFields(model, caller) : NONE;
}
