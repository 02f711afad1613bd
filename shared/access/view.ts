import type { Caller } from '../auth/authorize';
import { ApiError } from '../errors';
import { lookUpModel } from './model-lookup';
import { hasFieldRules, hasRowRules } from '../models/has-rules';
import { hiddenFor, reachFor } from './caller-rules';

/** The models a request names: its path's, or a transaction's operations'. */
function modelNames(params: Record<string, string>, body: unknown): string[] {
  const operations = (body as { operations?: unknown } | null | undefined)?.operations;
  const named = Array.isArray(operations) ? operations.map((op) => (op as { model?: unknown } | null)?.model) : [params.model_name];
  return [...new Set(named.filter((name): name is string => typeof name === 'string'))].sort();
}

/**
 * What a caller's rules make of the models a request names, as text: per model with rules, the
 * records it reaches and the fields hidden from it; '' where no model has a rule. Two requests
 * under one Idempotency-Key are one request only if they agree on it: one person (a JWT's issuer
 * and sub) signed in to another tenant, or without admin, sees another part of the table, and a
 * replay must not answer that view with the first one's answer.
 */
export async function viewOf(caller: Caller | undefined, params: Record<string, string>, body: unknown): Promise<string> {
  if (!caller) return '';
  const views: unknown[] = [];
  for (const name of modelNames(params, body)) {
    const model = await lookUpModel(name);
    if (!model || (!hasRowRules(model) && !hasFieldRules(model))) continue;
    let reach: unknown;
    try {
      reach = (await reachFor(model, caller)) ?? null;
    } catch (error) {
      // The operation refuses such a caller itself (403): its view is that refusal.
      if (!(error instanceof ApiError)) throw error;
      reach = error.code;
    }
    views.push([name, reach, [...(await hiddenFor(model, caller))].sort()]);
  }
  return views.length === 0 ? '' : JSON.stringify(views);
}
