import { addDecimal, compareDecimal, negateDecimal as negated } from '../../json/decimal';
import { numberText, toExactNumber } from '../../json/exact-json';
import type { Model } from '../../models/model';
import { checkAgainst } from '../../models/validate';
import * as zm from '../../zod';
import { InvalidRecord } from '../errors';
import type { ExpressionBuilder } from '../filter/expression';
import { DATA_ATTRIBUTE } from '../table';
import { fieldRule, type NumberBounds } from './bounds';
import type { Change, Changes } from './changes';

/** An update as DynamoDB applies it in one UpdateItem: SET and REMOVE clauses, and the condition under which the result is one the model takes. */
export interface CompiledChanges {
  set: string[];
  remove: string[];
  /** Absent when every result is valid whatever the record holds. */
  condition?: string;
}

/** The condition on the stored number under which adding `by` stays within the bounds. */
function incCondition(x: ExpressionBuilder, path: string, by: string, bounds: NumberBounds, optional: boolean): string {
  const parts = [`attribute_type(${path}, ${x.value('N')})`];
  const within = (start: string) => {
    const result = addDecimal(start, by);
    const { min, max } = bounds;
    return (
      (!min || compareDecimal(result, String(min.value)) > (min.inclusive ? -1 : 0)) &&
      (!max || compareDecimal(result, String(max.value)) < (max.inclusive ? 1 : 0))
    );
  };
  // new = old + by >= min  <=>  old >= min - by (exact: DynamoDB compares decimals exactly).
  if (bounds.min) parts.push(`${path} ${bounds.min.inclusive ? '>=' : '>'} ${x.value(toExactNumber(addDecimal(String(bounds.min.value), negated(by))))}`);
  if (bounds.max) parts.push(`${path} ${bounds.max.inclusive ? '<=' : '<'} ${x.value(toExactNumber(addDecimal(String(bounds.max.value), negated(by))))}`);
  const present = parts.join(' AND ');
  // A missing optional field starts from 0; a required one is never missing.
  if (!optional || !within('0')) return `(${present})`;
  return `(attribute_not_exists(${path}) OR (${present}))`;
}

/**
 * The changes as one atomic UpdateItem on the record's data attribute, with the condition under
 * which the model takes the result, or undefined when that cannot be stated (a nested path, an
 * operator DynamoDB has no expression for, a field whose checks a condition cannot state, an
 * indexed field whose index keys must be re-encoded, a model that checks fields together).
 * Values set whole are checked here against their field (InvalidRecord: no record could take them).
 */
export async function compileChanges(changes: Changes, x: ExpressionBuilder, model: Model): Promise<CompiledChanges | undefined> {
  if ((model.schema._zod.def.checks ?? []).length > 0) return undefined;
  const compiled: CompiledChanges = { set: [], remove: [] };
  const conditions: string[] = [];
  const toSet: Record<string, unknown> = {};
  const compilable = (change: Change) =>
    change.path.length === 1 && Object.hasOwn(model.schema.shape, change.path[0]) && !model.indexed.includes(change.path[0]);
  for (const change of changes.list) {
    if (!compilable(change)) return undefined;
    const field = change.path[0];
    const rule = fieldRule(model.schema.shape[field]);
    const path = x.path([DATA_ATTRIBUTE, field]);
    switch (change.op) {
      case 'set':
        toSet[field] = change.value;
        break;
      case 'unset':
        if (!rule?.optional) return undefined;
        compiled.remove.push(path);
        break;
      case 'inc': {
        const by = numberText(change.by);
        if (rule?.kind !== 'number' || (rule.bounds.integer && !Number.isInteger(Number(by)))) return undefined;
        conditions.push(incCondition(x, path, by, rule.bounds, rule.optional));
        compiled.set.push(`${path} = if_not_exists(${path}, ${x.value(0)}) + ${x.value(change.by)}`);
        break;
      }
      case 'push': {
        if (rule?.kind !== 'array') return undefined;
        const elements = await checkAgainst(zm.array(rule.element), change.each, ['values', `$push`, field]);
        if (!elements.value) throw new InvalidRecord(elements.details);
        const n = change.each.length;
        if (rule.maxLength !== undefined && n > rule.maxLength) return undefined;
        const present = [`attribute_type(${path}, ${x.value('L')})`];
        if (rule.maxLength !== undefined) present.push(`size(${path}) <= ${x.value(rule.maxLength - n)}`);
        // A missing optional array starts empty: it takes the elements if they alone are enough.
        const fromEmpty = rule.optional && (rule.minLength === undefined || n >= rule.minLength);
        conditions.push(fromEmpty ? `(attribute_not_exists(${path}) OR (${present.join(' AND ')}))` : `(${present.join(' AND ')})`);
        compiled.set.push(`${path} = list_append(if_not_exists(${path}, ${x.value([])}), ${x.value(elements.value)})`);
        break;
      }
      default:
        return undefined;
    }
  }
  if (Object.keys(toSet).length > 0) {
    const shape = Object.fromEntries(Object.keys(toSet).map((field) => [field, model.schema.shape[field]]));
    const valid = await checkAgainst(zm.strictObject(shape), toSet, ['values']);
    if (!valid.value) throw new InvalidRecord(valid.details);
    for (const [field, value] of Object.entries(valid.value as Record<string, unknown>))
      compiled.set.push(`${x.path([DATA_ATTRIBUTE, field])} = ${x.value(value)}`);
  }
  if (conditions.length > 0) compiled.condition = conditions.join(' AND ');
  return compiled;
}
