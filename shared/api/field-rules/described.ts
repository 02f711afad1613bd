import type { FieldRule, Model, ModelSchema } from '../../models/model';
import * as zm from '../../zod';
import { withoutFields } from './seen';

/** A model's rules as the models endpoint and the OpenAPI document state them (docs/security.md). */
export interface RulesView {
  owner?: string;
  tenant?: { field: string; claim: string };
  read_only?: string[];
  visible_to?: Record<string, NonNullable<FieldRule['visibleTo']>>;
}

/**
 * The rules of a model, less what `hidden` keeps from the caller: a field it may not see is in
 * no rule it is told of. The OpenAPI document, one per deployment, passes nothing hidden.
 */
export function rulesOf(model: Model, hidden: ReadonlySet<string> = new Set()): RulesView {
  const shown = Object.entries(model.fields).filter(([field]) => !hidden.has(field));
  const readOnly = shown.filter(([, rule]) => rule.readOnly).map(([field]) => field);
  const visibleTo = shown.flatMap(([field, rule]) => (rule.visibleTo ? [[field, rule.visibleTo] as const] : []));
  return {
    ...(model.owner ? { owner: model.owner } : {}),
    ...(model.tenant ? { tenant: { field: model.tenant.field, claim: model.tenant.claim } } : {}),
    ...(readOnly.length > 0 ? { read_only: readOnly } : {}),
    ...(visibleTo.length > 0 ? { visible_to: Object.fromEntries(visibleTo) } : {}),
  };
}

/** The model's JSON Schema as a caller sees it: without its hidden fields, each read-only one marked readOnly (JSON Schema's own word). */
export function schemaSeen(model: Model, hidden: ReadonlySet<string>) {
  const schema = withoutFields(model.jsonSchema, hidden);
  const readOnly = Object.entries(model.fields).filter(([field, rule]) => rule.readOnly && Object.hasOwn(schema.properties, field));
  if (readOnly.length === 0) return schema;
  return {
    ...schema,
    properties: { ...schema.properties, ...Object.fromEntries(readOnly.map(([field]) => [field, { ...schema.properties[field], readOnly: true }])) },
  };
}

/** What a document says of a field under a rule, beside its own description. */
function ruleText(rule: FieldRule): string {
  const to = rule.visibleTo;
  const shownTo = to && ('scope' in to ? `callers with the ${to.scope} scope` : `callers whose credential carries the ${to.claim} claim`);
  return [
    shownTo ? `Shown only to ${shownTo}: to any other caller this field does not exist (never answered; naming it is refused as an unknown field).` : '',
    rule.readOnly ? 'Read-only: only the service sets it; a request naming it is 403 forbidden.' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * The model's schema with each ruled field saying its rule where a document shows it: JSON
 * Schema's readOnly, `x-recordgate-visible-to`, and the rule in words. The OpenAPI document is
 * one per deployment: it shows hidden fields, marked, where the models endpoint leaves them out.
 */
export function documentedSchema(model: Model): ModelSchema {
  const ruled = Object.entries(model.fields);
  if (ruled.length === 0) return model.schema;
  const shape = model.schema.shape as Record<string, zm.core.$ZodType & { clone(): zm.core.$ZodType }>;
  const marked = ruled.map(([field, rule]) => {
    const copy = shape[field].clone();
    const own = zm.globalRegistry.get(shape[field]);
    zm.globalRegistry.add(copy, {
      ...own,
      description: [own?.description, ruleText(rule)].filter(Boolean).join(' '),
      ...(rule.readOnly ? { readOnly: true } : {}),
      ...(rule.visibleTo ? { 'x-recordgate-visible-to': rule.visibleTo } : {}),
    });
    return [field, copy];
  });
  return zm.safeExtend(model.schema as zm.ZodMiniObject, Object.fromEntries(marked)) as ModelSchema;
}
