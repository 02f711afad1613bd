import type { FieldRule, Model } from '../../models/define';
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
