import type { ExactNumber } from '../../json/exact-json';

/** Where a change lands inside a record's data: a model field, then property names into nested objects. */
export type FieldPath = ReadonlyArray<string>;

/**
 * One parsed update operator on one path, its operand checked against the model's kind for
 * that path (shared/store/operators/parse.ts). `each` holds the elements $push or $addToSet add.
 */
export type Change =
  | { op: 'set'; path: FieldPath; value: unknown }
  | { op: 'setOnInsert'; path: FieldPath; value: unknown }
  | { op: 'unset'; path: FieldPath }
  | { op: 'inc'; path: FieldPath; by: ExactNumber }
  | { op: 'min' | 'max'; path: FieldPath; value: ExactNumber | string }
  | { op: 'push' | 'addToSet'; path: FieldPath; each: ReadonlyArray<unknown> }
  | { op: 'pull'; path: FieldPath; value: unknown };

/** An update's `values`, parsed: its changes in the order sent, no two on overlapping paths. */
export interface Changes {
  readonly list: ReadonlyArray<Change>;
}

/** The operator names `values` takes, and the change each becomes. */
export const UPDATE_OPERATORS = {
  $set: 'set',
  $unset: 'unset',
  $inc: 'inc',
  $min: 'min',
  $max: 'max',
  $push: 'push',
  $addToSet: 'addToSet',
  $pull: 'pull',
  $setOnInsert: 'setOnInsert',
} as const satisfies Record<string, Change['op']>;

export type UpdateOperator = keyof typeof UPDATE_OPERATORS;

export const pathName = (path: FieldPath): string => path.join('.');
