import * as shipped from '../models/catalog';
import type { Catalog } from '../models/catalog-of';
import { StoreError, UnknownField } from '../store/errors';
import type { FilterNode } from '../store/filter/ast';
import { evaluate } from '../store/filter/evaluate';
import { parseFilter } from '../store/filter/parse';
import type { Change } from './change';
import { type Subscription, subscriptionsSchema } from './subscriptions';

/** A subscription as checked: its filter parsed for each model it names (every record where it has none). */
export type CheckedSubscription = Subscription & { filterOf: Readonly<Record<string, FilterNode>> };

/** SUBSCRIPTIONS as given cannot serve: every problem, each named by the entry's position and field. */
export class SubscriptionsInvalid extends Error {
  constructor(readonly problems: ReadonlyArray<string>) {
    super(`SUBSCRIPTIONS is invalid: ${problems.join('; ')}`);
  }
}

const where = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}.${String(key)}`), 'SUBSCRIPTIONS');

const filterProblem = (error: StoreError): string => (error instanceof UnknownField ? `${error.message} (at ${error.detail.path})` : error.message);

/**
 * SUBSCRIPTIONS checked, at start and at synth: the JSON, each entry's shape
 * (./subscriptions.ts), every model it names in the catalog (a deployment's own, at its synth), its filter parsed against each of
 * them as the record API parses a filter. Unset or blank: none. A problem is told by where it is,
 * never by what the text holds there: the text holds the webhooks' secrets.
 */
export async function checkSubscriptions(text: string | undefined, catalog: Catalog = shipped): Promise<CheckedSubscription[]> {
  const { findModel, MODEL_NAMES } = catalog;
  if (text === undefined || text.trim() === '') return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault.
    throw new SubscriptionsInvalid(['is not valid JSON (a JSON array of subscriptions; the text is not shown, as it holds secrets)']);
  }
  const parsed = subscriptionsSchema.safeParse(json);
  if (!parsed.success) {
    throw new SubscriptionsInvalid(
      parsed.error.issues.map(
        (issue) =>
          `${where(issue.path)}: ${issue.code === 'invalid_union' ? 'a webhook takes url and secret; an EventBridge subscription takes bus' : issue.message}`,
      ),
    );
  }
  const problems: string[] = [];
  const checked: CheckedSubscription[] = [];
  for (const [position, entry] of parsed.data.entries()) {
    const filterOf: Record<string, FilterNode> = {};
    for (const [at, name] of entry.models.entries()) {
      const model = await findModel(name);
      if (!model) {
        problems.push(`${where([position, 'models', at])}: no model ${name} in the catalog (${MODEL_NAMES.join(', ')})`);
        continue;
      }
      try {
        filterOf[name] = parseFilter(model, entry.filter, ['filter']);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        problems.push(`${where([position, 'filter'])} for model ${name}: ${filterProblem(error)}`);
      }
    }
    checked.push({ ...entry, filterOf });
  }
  if (problems.length > 0) throw new SubscriptionsInvalid(problems);
  return checked;
}

/** Whether a change goes to a subscription: its model, its op, and its filter on `after`, or on `before` for a delete. */
export function matches(subscription: CheckedSubscription, change: Change): boolean {
  const filter = subscription.filterOf[change.model];
  if (filter === undefined || (subscription.ops !== undefined && !subscription.ops.includes(change.op))) return false;
  const record = change.op === 'delete' ? change.before : change.after;
  return record !== undefined && evaluate(filter, record);
}
