import { compareDecimal, dynamoNumberProblem } from '../../json/decimal';
import { isExactNumber, isJsonObject, numberText } from '../../json/exact-json';
import { LIMITS } from '../../limits';
import { pathText } from '../../models/details';
import { isSystemField, SYSTEM_FIELDS, typesOf, type FieldSchema, type Model } from '../../models/define';
import { InvalidFilter, UnknownField } from '../errors';
import { DATA_ATTRIBUTE } from '../table';
import type { CompareOp, FilterNode } from './ast';
import { compileFilter } from './compile';
import { ExpressionBuilder } from './expression';
import { utf8Order } from '../utf8-order';

/** `$op` names accepted in operator objects, and the comparison each stands for. */
const OPERATORS: Record<string, CompareOp | 'exists'> = {
  $eq: 'eq',
  $ne: 'ne',
  $gt: 'gt',
  $gte: 'gte',
  $lt: 'lt',
  $lte: 'lte',
  $in: 'in',
  $nin: 'nin',
  $between: 'between',
  $exists: 'exists',
  $begins_with: 'begins_with',
  $contains: 'contains',
};
const LOGICAL = ['$and', '$or', '$not'];

const ownProperty = <T>(object: Record<string, T> | undefined, key: string): T | undefined => (object && Object.hasOwn(object, key) ? object[key] : undefined);

const invalid = (path: PropertyKey[], message: string, operators?: string[]) => new InvalidFilter(pathText(path), message, operators);

function kindOf(value: unknown): string {
  if (isExactNumber(value)) return 'number';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** The kinds of value a schema accepts ('number' covers 'integer'); empty means anything. */
function acceptedKinds(schema: FieldSchema): Set<string> {
  return new Set(typesOf(schema).map((t) => (t === 'integer' ? 'number' : t)));
}

interface Target {
  field: string;
  path: string[];
  schema: FieldSchema;
}

class FilterParser {
  private conditions = 0;

  constructor(private readonly model: Model) {}

  parse(value: unknown, path: PropertyKey[], depth: number): FilterNode {
    if (!isJsonObject(value)) throw invalid(path, 'a filter must be a JSON object');
    if (depth > LIMITS.maxFilterDepth) throw invalid(path, `nested deeper than ${LIMITS.maxFilterDepth} levels`);
    const items: FilterNode[] = [];
    for (const [key, operand] of Object.entries(value)) {
      const at = [...path, key];
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(operand) || operand.length === 0) throw invalid(at, `${key} takes a non-empty array of filters`);
        items.push({ kind: key === '$and' ? 'and' : 'or', items: operand.map((f, i) => this.parse(f, [...at, i], depth + 1)) });
      } else if (key === '$not') {
        items.push({ kind: 'not', item: this.parse(operand, at, depth + 1) });
      } else if (key.startsWith('$')) {
        throw invalid(at, `unknown operator ${key} here; use ${LOGICAL.join(', ')} or a field name`);
      } else {
        items.push(this.field(this.target(key, at), operand, at, depth));
      }
    }
    return items.length === 1 ? items[0] : { kind: 'and', items };
  }

  private target(key: string, at: PropertyKey[]): Target {
    const [field, ...rest] = key.split('.');
    // Own properties only: "__proto__", "constructor" or "toString" must not find Object.prototype's.
    let schema: FieldSchema | undefined = isSystemField(field) ? SYSTEM_FIELDS[field] : ownProperty(this.model.storedSchema.properties, field);
    if (!schema || (isSystemField(field) && rest.length > 0)) {
      const available = ['id', ...Object.keys(this.model.storedSchema.properties), ...Object.keys(SYSTEM_FIELDS).filter((f) => f !== 'id')];
      const where = pathText(at);
      throw new UnknownField(this.model.name, key, { path: where, message: `unknown field ${key}` }, available, where);
    }
    for (const segment of rest) {
      const next: FieldSchema | undefined =
        ownProperty(schema.properties, segment) ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (!next) {
        // A schema that names no kinds (inside a free-form object) may hold objects at any depth.
        const kinds = acceptedKinds(schema);
        if (schema.additionalProperties === false || (kinds.size > 0 && !kinds.has('object'))) {
          const where = pathText(at);
          throw new UnknownField(this.model.name, key, { path: where, message: `no property ${segment} inside ${field}` }, undefined, where);
        }
        schema = {};
      } else schema = next;
    }
    return { field, path: isSystemField(field) ? [field] : [DATA_ATTRIBUTE, field, ...rest], schema };
  }

  private field(target: Target, operand: unknown, at: PropertyKey[], depth: number): FilterNode {
    if (operand === null) return this.compare(target, 'null', [], at);
    if (Array.isArray(operand)) return this.compare(target, 'in', this.list(target, operand, at), at);
    if (isJsonObject(operand)) {
      const keys = Object.keys(operand);
      const operators = keys.filter((k) => k.startsWith('$'));
      if (operators.length === 0) return this.compare(target, 'eq', [this.typed(target, operand, at)], at);
      if (operators.length !== keys.length) throw invalid(at, 'mixes operators with plain keys; wrap the object value in {"$eq": ...}');
      const items = keys.map((k) => this.operator(target, k, operand[k], [...at, k], depth));
      return items.length === 1 ? items[0] : { kind: 'and', items };
    }
    return this.compare(target, 'eq', [this.typed(target, operand, at)], at);
  }

  private operator(target: Target, name: string, operand: unknown, at: PropertyKey[], depth: number): FilterNode {
    if (name === '$not') {
      if (!isJsonObject(operand)) throw invalid(at, '$not on a field takes an operator object');
      // A field's $not nests like a logical one and counts toward the same depth.
      if (depth + 1 > LIMITS.maxFilterDepth) throw invalid(at, `nested deeper than ${LIMITS.maxFilterDepth} levels`);
      return { kind: 'not', item: this.field(target, operand, at, depth + 1) };
    }
    const op = Object.hasOwn(OPERATORS, name) ? OPERATORS[name] : undefined;
    if (!op) throw invalid(at, `unknown operator ${name}`, [...Object.keys(OPERATORS), '$not']);
    switch (op) {
      case 'eq':
        return this.compare(target, operand === null ? 'null' : 'eq', operand === null ? [] : [this.typed(target, operand, at)], at);
      case 'ne':
        // {"$ne": null} is "present and not null": the negation of the null test.
        return operand === null
          ? { kind: 'not', item: this.compare(target, 'null', [], at) }
          : this.compare(target, 'ne', [this.typed(target, operand, at)], at);
      case 'in':
      case 'nin':
        if (!Array.isArray(operand)) throw invalid(at, `${name} takes an array`);
        return this.compare(target, op, this.list(target, operand, at), at);
      case 'between': {
        if (!Array.isArray(operand) || operand.length !== 2) throw invalid(at, '$between takes [low, high]');
        const [low, high] = operand.map((v, i) => this.ordered(target, v, [...at, i]));
        // DynamoDB refuses bounds of two kinds rather than answering; so do we, as InvalidFilter.
        if (kindOf(low) !== kindOf(high)) throw invalid(at, '$between takes two numbers or two strings');
        if (compareOperands(low, high) > 0) throw invalid(at, '$between needs low <= high');
        return this.compare(target, op, [low, high], at);
      }
      case 'exists':
        if (typeof operand !== 'boolean') throw invalid(at, '$exists takes true or false');
        return operand ? { kind: 'not', item: this.compare(target, 'null', [], at) } : this.compare(target, 'null', [], at);
      case 'begins_with':
        if (typeof operand !== 'string') throw invalid(at, '$begins_with takes a string');
        this.expectKind(target, 'string', at);
        return this.compare(target, op, [this.boundedString(operand, at)], at);
      case 'contains': {
        const kinds = acceptedKinds(target.schema);
        if (kinds.has('array')) {
          const element = { ...target, schema: target.schema.items ?? {} };
          return this.compare(target, op, [this.typed(element, operand, at)], at);
        }
        if (typeof operand !== 'string') throw invalid(at, '$contains takes a string (or an element, on an array field)');
        this.expectKind(target, 'string', at);
        return this.compare(target, op, [this.boundedString(operand, at)], at);
      }
      default:
        return this.compare(target, op, [this.ordered(target, operand, at)], at);
    }
  }

  private compare(target: Target, op: CompareOp, operands: unknown[], at: PropertyKey[]): FilterNode {
    this.conditions += 1;
    if (this.conditions > LIMITS.maxFilterConditions) throw invalid(at, `more than ${LIMITS.maxFilterConditions} conditions`);
    return { kind: 'compare', field: target.field, path: target.path, op, operands };
  }

  private list(target: Target, values: unknown[], at: PropertyKey[]): unknown[] {
    if (values.length === 0) throw invalid(at, 'an $in/$nin list needs at least one value');
    if (values.length > LIMITS.maxInValues) throw invalid(at, `an $in/$nin list takes at most ${LIMITS.maxInValues} values`);
    return values.map((v, i) => this.typed(target, v, [...at, i]));
  }

  /** Range operators compare numbers with numbers and strings with strings only. */
  private ordered(target: Target, value: unknown, at: PropertyKey[]): unknown {
    if (!isExactNumber(value) && typeof value !== 'string') throw invalid(at, 'range operators take a number or a string');
    return this.typed(target, value, at);
  }

  private typed(target: Target, value: unknown, at: PropertyKey[]): unknown {
    if (value === null) throw invalid(at, 'null is only allowed as the whole condition ({"field": null}) or with $eq/$ne');
    this.expectKind(target, kindOf(value), at);
    // A number DynamoDB cannot hold matches nothing it stores, and the engine would refuse the request.
    const problem = isExactNumber(value) ? dynamoNumberProblem(numberText(value)) : undefined;
    if (problem) throw invalid(at, `number ${problem}`);
    return typeof value === 'string' ? this.boundedString(value, at) : value;
  }

  private expectKind(target: Target, kind: string, at: PropertyKey[]): void {
    const kinds = acceptedKinds(target.schema);
    if (kinds.size > 0 && !kinds.has(kind)) {
      throw invalid(at, `field ${target.field} holds ${[...kinds].join(' or ')}, not ${kind}`);
    }
  }

  private boundedString(value: string, at: PropertyKey[]): string {
    if (value.length > LIMITS.maxFilterStringLength) throw invalid(at, `strings in filters are at most ${LIMITS.maxFilterStringLength} characters`);
    return value;
  }
}

function compareOperands(a: unknown, b: unknown): number {
  if (isExactNumber(a) && isExactNumber(b)) return compareDecimal(numberText(a), numberText(b));
  return utf8Order(String(a), String(b));
}

/** Parses and checks a filter object against a model; `path` names it in errors (e.g. ["filters"]). */
export function parseFilter(model: Model, filters: unknown, path: PropertyKey[] = ['filters']): FilterNode {
  const node = new FilterParser(model).parse(filters ?? {}, path, 1);
  // DynamoDB refuses an expression over 4 KB; a delete adds a clause to the filter.
  const compiled = compileFilter(node, new ExpressionBuilder()) ?? '';
  if (compiled.length > LIMITS.maxFilterExpressionLength) {
    throw invalid(
      path,
      `the filter compiles to ${compiled.length} characters of DynamoDB expression, more than ${LIMITS.maxFilterExpressionLength}; use fewer conditions or shorter $in lists`,
    );
  }
  return node;
}
