import { dynamoNumberProblem } from '../../json/decimal';
import { isExactNumber, isJsonObject, numberText, type ExactNumber } from '../../json/exact-json';
import { isSystemField, type FieldSchema, type Model } from '../../models/model';
import { pathText } from '../../models/details';
import { InvalidValues } from '../errors';
import { alternatives, describe, elementSchemas, holdsKind, kindOf, propertySchemas, unionOf } from '../filter/parse';
import { UPDATE_OPERATORS, pathName, type Change, type Changes, type FieldPath, type UpdateOperator } from './changes';

const refuse = (at: ReadonlyArray<PropertyKey>, message: string): InvalidValues =>
  new InvalidValues(`${pathText(at)}: ${message}`, [{ path: pathText(at), message }]);

/** What a path may hold by the model; undefined for a top-level field the model does not declare. */
function schemaAt(model: Model, path: FieldPath, at: ReadonlyArray<PropertyKey>): FieldSchema | undefined {
  const defs = model.storedSchema.$defs ?? {};
  let schema: FieldSchema | undefined = Object.hasOwn(model.storedSchema.properties, path[0]) ? model.storedSchema.properties[path[0]] : undefined;
  if (schema === undefined) {
    if (path.length === 1) return undefined;
    throw refuse(at, `${model.name} has no field ${path[0]}`);
  }
  for (const [i, segment] of path.slice(1).entries()) {
    const next = propertySchemas(schema, segment, defs);
    if (next.length === 0) throw refuse(at, `no property ${segment} inside ${pathName(path.slice(0, i + 1))}`);
    schema = unionOf(next);
  }
  return schema;
}

/** Refuses an operand of a kind the path never holds: an operator on a field whose kind cannot take it. */
function checkKind(model: Model, schema: FieldSchema | undefined, kind: string, what: string, at: ReadonlyArray<PropertyKey>): void {
  const defs = model.storedSchema.$defs ?? {};
  if (schema !== undefined && !alternatives(schema, defs).some((a) => holdsKind(a, kind))) {
    throw refuse(at, `${what} holds ${describe(schema, defs)}, not ${kind === 'array' || kind === 'object' ? 'an' : 'a'} ${kind}`);
  }
}

function checkNumber(value: unknown, op: string, at: ReadonlyArray<PropertyKey>): void {
  if (!isExactNumber(value)) throw refuse(at, `${op} takes a number`);
  const problem = dynamoNumberProblem(numberText(value));
  if (problem) throw refuse(at, `number ${problem}`);
}

/** The elements $push or $addToSet add: one value, or the array of {"$each": [...]}. */
function elementsOf(operand: unknown, op: string, at: ReadonlyArray<PropertyKey>): unknown[] {
  if (!isJsonObject(operand) || !Object.hasOwn(operand, '$each')) return [operand];
  if (Object.keys(operand).length !== 1 || !Array.isArray(operand.$each)) throw refuse(at, `${op} takes one value or {"$each": [values]}`);
  return operand.$each;
}

function parsePath(key: string, at: ReadonlyArray<PropertyKey>): FieldPath {
  const path = key.split('.');
  if (path.some((segment) => segment === '')) throw refuse(at, `${key} is not a field path`);
  if (isSystemField(path[0])) throw refuse(at, `${path[0]} is managed by the service and cannot be set`);
  if (path[0].startsWith('$')) throw refuse(at, `${path[0]} is not a field: fields never start with $`);
  return path;
}

function change(model: Model, name: string, key: string, operand: unknown, at: ReadonlyArray<PropertyKey>): Change {
  const path = parsePath(key, at);
  const schema = schemaAt(model, path, at);
  const op = UPDATE_OPERATORS[name as UpdateOperator];
  const what = `${name} cannot apply to ${pathName(path)}, which`;
  switch (op) {
    case 'set':
    case 'setOnInsert':
      // null removes, as in the plain shorthand: a stored null is never a field's value.
      return operand === null ? { op: 'unset', path } : { op, path, value: operand };
    case 'unset':
      return { op, path };
    case 'inc':
      checkNumber(operand, name, at);
      checkKind(model, schema, 'number', what, at);
      return { op, path, by: operand as ExactNumber };
    case 'min':
    case 'max':
      if (typeof operand !== 'string') checkNumber(operand, name, at);
      checkKind(model, schema, kindOf(operand), what, at);
      return { op, path, value: operand as string };
    case 'push':
    case 'addToSet': {
      const each = elementsOf(operand, name, at);
      checkKind(model, schema, 'array', what, at);
      const element = schema && unionOf(elementSchemas(schema, model.storedSchema.$defs ?? {}));
      for (const [i, value] of each.entries()) checkKind(model, element, kindOf(value), `an element of ${pathName(path)}`, [...at, i]);
      return { op, path, each };
    }
    case 'pull':
      checkKind(model, schema, 'array', what, at);
      return { op, path, value: operand };
  }
}

/** Two changes to one path, or to a path and one inside it: DynamoDB refuses both in one update, and the order between them would be a guess. */
function refuseOverlaps(changes: ReadonlyArray<{ change: Change; at: ReadonlyArray<PropertyKey> }>): void {
  for (const [i, a] of changes.entries()) {
    for (const b of changes.slice(i + 1)) {
      const [short, long] = a.change.path.length <= b.change.path.length ? [a, b] : [b, a];
      if (short.change.path.every((segment, k) => long.change.path[k] === segment)) {
        throw refuse(b.at, `changes ${pathName(b.change.path)}, which ${pathText(a.at)} changes too; change a path once per update`);
      }
    }
  }
}

/**
 * An update's `values` as changes, each checked against the model's kinds: keys starting with $
 * are operators, any other key is the plain shorthand of $set of that field (null removes it).
 * Refuses with InvalidValues (400, every detail with its path) what no record could take; what
 * a particular record cannot take (a bound, a required field) is for the model to judge on the result.
 */
export function parseValues(model: Model, values: Record<string, unknown>, { upsert = false }: { upsert?: boolean } = {}): Changes {
  if (Object.keys(values).length === 0) throw new InvalidValues('values is empty: name at least one field to set', [{ path: 'values', message: 'empty' }]);
  const parsed: Array<{ change: Change; at: ReadonlyArray<PropertyKey> }> = [];
  for (const [key, operand] of Object.entries(values)) {
    const at = ['values', key];
    if (!key.startsWith('$')) {
      if (key.includes('.')) throw refuse(at, `a dotted path needs an operator: {"$set": {"${key}": ...}}`);
      parsed.push({ change: change(model, operand === null ? '$unset' : '$set', key, operand, at), at });
      continue;
    }
    if (!Object.hasOwn(UPDATE_OPERATORS, key)) throw refuse(at, `unknown operator ${key}; use one of ${Object.keys(UPDATE_OPERATORS).join(', ')}`);
    if (key === '$setOnInsert' && !upsert) throw refuse(at, '$setOnInsert only applies with "upsert": true');
    if (!isJsonObject(operand) || Object.keys(operand).length === 0) throw refuse(at, `${key} takes an object of field paths and operands`);
    for (const [path, inner] of Object.entries(operand)) {
      parsed.push({ change: change(model, key, path, inner, [...at, path]), at: [...at, path] });
    }
  }
  refuseOverlaps(parsed);
  return { list: parsed.map((p) => p.change) };
}
