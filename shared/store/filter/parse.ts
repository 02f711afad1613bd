import { compareDecimal, dynamoNumberProblem } from '../../json/decimal';
import { isExactNumber, isJsonObject, numberText, stringifyExactJson } from '../../json/exact-json';
import { withinCharacters } from '../../characters';
import { LIMITS } from '../../limits';
import { pathText } from '../../models/details';
import { isSystemField, SYSTEM_FIELDS, type FieldSchema, type Model } from '../../models/model';
import { InvalidFilter, UnknownField } from '../errors';
import { DATA_ATTRIBUTE } from '../table';
import type { CompareOp, FilterNode } from './ast';
import { compileFilter } from './compile';
import { ExpressionBuilder } from './expression';
import { utf8Order } from '../utf8-order';

/** `$op` names accepted in operator objects, and the comparison each stands for. */
export const OPERATORS: Record<string, CompareOp | 'exists'> = {
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

export function kindOf(value: unknown): string {
  if (isExactNumber(value)) return 'number';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * The alternatives a value held at `schema` may take: one per branch of a union (anyOf, oneOf;
 * z.nullable is one), with a $ref (z.lazy, a schema used twice) followed into the model's $defs.
 * The parts of an intersection zod could not merge (allOf) count alike: zod's output keeps the
 * keys of every part, so a name any part admits can be stored.
 */
export function alternatives(schema: FieldSchema, defs: Record<string, FieldSchema>): FieldSchema[] {
  if (schema.$ref !== undefined) {
    const defined = ownProperty(defs, schema.$ref.replace(/^#\/\$defs\//, ''));
    return defined ? alternatives(defined, defs) : [{}];
  }
  const union = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  return union ? union.flatMap((branch) => alternatives(branch, defs)) : [schema];
}

/** The kinds of value one alternative holds ('number' covers 'integer'); undefined: any kind. */
export function kindsOf(alternative: FieldSchema): string[] | undefined {
  if (alternative.type === undefined) return undefined;
  return (Array.isArray(alternative.type) ? alternative.type : [alternative.type]).map((t) => (t === 'integer' ? 'number' : t));
}

export const holdsKind = (alternative: FieldSchema, kind: string) => kindsOf(alternative)?.includes(kind) ?? true;

export const unionOf = (schemas: FieldSchema[]): FieldSchema => (schemas.length === 1 ? schemas[0] : { anyOf: schemas });

function admitsName(names: FieldSchema['propertyNames'], name: string): boolean {
  if (names?.enum) return names.enum.includes(name);
  return names?.pattern === undefined || new RegExp(names.pattern, 'u').test(name);
}

/**
 * What property `name` of a value held at `schema` may hold; empty when no alternative has it.
 * zod (io: output) writes `additionalProperties: false` for z.object and z.strictObject, whose
 * other keys are stripped or refused, and a schema for z.looseObject, a catchall and z.record,
 * which keep any name (z.record's key schema as propertyNames); z.unknown and z.any name no type.
 */
export function propertySchemas(schema: FieldSchema, name: string, defs: Record<string, FieldSchema>): FieldSchema[] {
  return alternatives(schema, defs).flatMap((alternative) => {
    if (!holdsKind(alternative, 'object')) return [];
    const declared = ownProperty(alternative.properties, name);
    if (declared) return [declared];
    const extra = alternative.additionalProperties;
    if (extra === false || !admitsName(alternative.propertyNames, name)) return [];
    return [typeof extra === 'object' ? extra : {}];
  });
}

/** What an element of an array held at `schema` may hold (the element at `index`, or any). */
export function elementSchemas(schema: FieldSchema, defs: Record<string, FieldSchema>, index?: number): FieldSchema[] {
  return alternatives(schema, defs).flatMap((alternative) => {
    if (!holdsKind(alternative, 'array')) return [];
    const rest = alternative.items === false ? [] : [alternative.items ?? {}];
    if (index === undefined) return [...(alternative.prefixItems ?? []), ...rest];
    const fixed = alternative.prefixItems?.[index];
    return fixed ? [fixed] : rest;
  });
}

const KIND_NAMES: Record<string, string> = {
  array: 'an array',
  object: 'an object',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

export function describe(schema: FieldSchema, defs: Record<string, FieldSchema>): string {
  const kinds = alternatives(schema, defs).map(kindsOf);
  if (kinds.some((k) => k === undefined)) return 'anything';
  const names = [...new Set(kinds.flat())].map((k) => KIND_NAMES[k as string] ?? (k as string));
  return names.length === 0 ? 'nothing' : names.join(' or ');
}

/** How an operand is used, which decides the fix a refusal suggests. */
type Use = 'eq' | 'ne' | 'in' | 'nin' | 'range' | 'element';

/** What a filter names: a field or a path into one, and what it holds there. */
interface Target {
  /** The name as the filter writes it: `tags`, `meta.inner.b`, or `an element of tags`. */
  key: string;
  field: string;
  path: string[];
  schema: FieldSchema;
}

class FilterParser {
  private conditions = 0;
  private readonly defs: Record<string, FieldSchema>;

  constructor(private readonly model: Model) {
    this.defs = model.storedSchema.$defs ?? {};
  }

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
    const where = pathText(at);
    // Own properties only: "__proto__", "constructor" or "toString" must not find Object.prototype's.
    let schema: FieldSchema | undefined = isSystemField(field) ? SYSTEM_FIELDS[field] : ownProperty(this.model.storedSchema.properties, field);
    if (!schema || (isSystemField(field) && rest.length > 0)) {
      const available = ['id', ...Object.keys(this.model.storedSchema.properties), ...Object.keys(SYSTEM_FIELDS).filter((f) => f !== 'id')];
      throw new UnknownField(this.model.name, key, { path: where, message: `unknown field ${key}` }, available, where);
    }
    // Every level refuses a name its schema cannot hold: a filter on a path no record has would
    // otherwise match nothing, or, negated or with $exists: false, every record of a delete.
    let reached = field;
    for (const segment of rest) {
      const next = propertySchemas(schema, segment, this.defs);
      if (next.length === 0) {
        const declared = alternatives(schema, this.defs).flatMap((a) => Object.keys(a.properties ?? {}));
        const kinds = alternatives(schema, this.defs);
        const message = kinds.some((a) => holdsKind(a, 'object'))
          ? `no property ${segment} inside ${reached}`
          : `${reached} holds ${describe(schema, this.defs)}, with no property ${segment}${kinds.some((a) => holdsKind(a, 'array')) ? `; a path does not reach into array elements: use {"${reached}": {"$contains": <a whole element>}}` : ''}`;
        const available = declared.length > 0 ? declared.map((name) => `${reached}.${name}`) : undefined;
        throw new UnknownField(this.model.name, key, { path: where, message }, available, where);
      }
      schema = unionOf(next);
      reached = `${reached}.${segment}`;
    }
    return { key, field, path: isSystemField(field) ? [field] : [DATA_ATTRIBUTE, field, ...rest], schema };
  }

  private field(target: Target, operand: unknown, at: PropertyKey[], depth: number): FilterNode {
    if (operand === null) return this.compare(target, 'null', [], at);
    if (Array.isArray(operand)) return this.compare(target, 'in', this.list(target, 'in', operand, at), at);
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
          : this.compare(target, 'ne', [this.typed(target, operand, at, 'ne')], at);
      case 'in':
      case 'nin':
        if (!Array.isArray(operand)) throw invalid(at, `${name} takes an array`);
        return this.compare(target, op, this.list(target, op, operand, at), at);
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
        return this.compare(target, op, [this.typed(target, operand, at, 'range')], at);
      case 'contains': {
        // A substring of a string, or an element of an array (any kind of element, compared as
        // $eq compares), as DynamoDB's contains() is.
        if (typeof operand === 'string' && alternatives(target.schema, this.defs).some((a) => holdsKind(a, 'string'))) {
          return this.compare(target, op, [this.boundedString(operand, at)], at);
        }
        const elements = elementSchemas(target.schema, this.defs);
        if (elements.length === 0) {
          throw invalid(
            at,
            `$contains takes a substring of a string field or an element of an array field; ${target.key} holds ${describe(target.schema, this.defs)}`,
          );
        }
        const element = { ...target, key: `an element of ${target.key}`, schema: unionOf(elements) };
        return this.compare(target, op, [this.typed(element, operand, at, 'element')], at);
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

  private list(target: Target, use: 'in' | 'nin', values: unknown[], at: PropertyKey[]): unknown[] {
    if (values.length === 0) throw invalid(at, 'an $in/$nin list needs at least one value');
    if (values.length > LIMITS.maxInValues) throw invalid(at, `an $in/$nin list takes at most ${LIMITS.maxInValues} values`);
    return values.map((v, i) => this.typed(target, v, [...at, i], use));
  }

  /** Range operators compare numbers with numbers and strings with strings only. */
  private ordered(target: Target, value: unknown, at: PropertyKey[]): unknown {
    if (!isExactNumber(value) && typeof value !== 'string') throw invalid(at, 'range operators take a number or a string');
    return this.typed(target, value, at, 'range');
  }

  /**
   * The operand, if the field can hold it: a value of a kind the field never holds (at any depth
   * inside an array or object operand) is refused, never a silent "no match", since $ne, $nin
   * or $not of it would match every record.
   */
  private typed(target: Target, value: unknown, at: PropertyKey[], use: Use = 'eq'): unknown {
    if (value === null) throw invalid(at, 'null is only allowed as the whole condition ({"field": null}) or with $eq/$ne');
    this.fits(target.key, target.schema, value, at, (kind) => this.fix(target, use, kind, value));
    // A number DynamoDB cannot hold matches nothing it stores, and the engine would refuse the request.
    const problem = isExactNumber(value) ? dynamoNumberProblem(numberText(value)) : undefined;
    if (problem) throw invalid(at, `number ${problem}`);
    return typeof value === 'string' ? this.boundedString(value, at) : value;
  }

  private fits(key: string, schema: FieldSchema, value: unknown, at: PropertyKey[], fix: (kind: string) => string = () => ''): void {
    const kind = kindOf(value);
    const matching = alternatives(schema, this.defs).filter((a) => holdsKind(a, kind));
    if (matching.length === 0) throw invalid(at, `${key} holds ${describe(schema, this.defs)}, not ${KIND_NAMES[kind] ?? kind}${fix(kind)}`);
    const held = unionOf(matching);
    if (Array.isArray(value)) {
      for (const [i, element] of value.entries()) this.fits(`an element of ${key}`, unionOf(elementSchemas(held, this.defs, i)), element, [...at, i]);
    } else if (isJsonObject(value)) {
      for (const [name, inner] of Object.entries(value)) {
        const next = propertySchemas(held, name, this.defs);
        if (next.length === 0) throw invalid([...at, name], `${key} has no property ${name}, so this value can never match`);
        this.fits(`${name} in ${key}`, unionOf(next), inner, [...at, name]);
      }
    }
  }

  /** The fix a refusal suggests: how to say what the filter most likely meant. */
  private fix(target: Target, use: Use, kind: string, value: unknown): string {
    const { key } = target;
    const operand = stringifyExactJson(value);
    const shown = operand.length <= 40 ? operand : '...';
    const canHold = (k: string) => alternatives(target.schema, this.defs).some((a) => holdsKind(a, k));
    if (kind !== 'array' && canHold('array')) {
      const element = `{"${key}": {"$contains": ${shown}}}`;
      switch (use) {
        case 'eq':
          return `. To match records whose ${key} has this element, use ${element}; to match the whole array, give an array: {"${key}": {"$eq": [${shown}]}}`;
        case 'ne':
          return `. To keep records whose ${key} lacks this element, use {"${key}": {"$not": {"$contains": ${shown}}}}; $ne compares the whole array: {"${key}": {"$ne": [${shown}]}}`;
        case 'in':
        case 'nin':
          return `. Each value of a list ($in, $nin or a bare list) is compared with the whole array, so each must itself be an array; for records whose ${key} has one of several elements, use {"$or": [${element}, ...]}${use === 'nin' ? ' inside $not' : ''}`;
        case 'range':
          return `. Range operators compare numbers or strings; for an element use ${element}`;
      }
    }
    if (kind === 'array' && use === 'eq' && !canHold('array')) return `. For any of several values, use {"${key}": {"$in": ${shown}}}`;
    return '';
  }

  private boundedString(value: string, at: PropertyKey[]): string {
    if (!withinCharacters(value, LIMITS.maxFilterStringLength)) throw invalid(at, `strings in filters are at most ${LIMITS.maxFilterStringLength} characters`);
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
