import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { parse, stringify } from 'lossless-json';
import { fitsJsNumber } from './decimal';

/**
 * JSON with exact numbers. JSON.parse rounds 18446744073709551617 and middy's JSON body
 * parser offers no way around it on Node 20, so numbers that a JS number cannot hold exactly
 * stay as the SDK's NumberValue, which DynamoDB stores digit for digit.
 */
export type ExactNumber = number | NumberValue;

export function toExactNumber(text: string): ExactNumber {
  return fitsJsNumber(text) ? Number(text) : NumberValue.from(text);
}

export function isExactNumber(value: unknown): value is ExactNumber {
  return typeof value === 'number' || value instanceof NumberValue;
}

/** A JSON object as parsed here: not an array, not null, not an exact number. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof NumberValue);
}

export function numberText(value: ExactNumber): string {
  return typeof value === 'number' ? String(value) : value.toString();
}

export function parseExactJson(text: string): unknown {
  // lossless-json defines a '__proto__' key as an own property, so a body cannot set a prototype.
  return parse(text, null, toExactNumber);
}

const numberValueStringifier = {
  test: (value: unknown) => value instanceof NumberValue,
  stringify: (value: unknown) => (value as NumberValue).toString(),
};

function holdsNumberValue(value: unknown): boolean {
  if (value instanceof NumberValue) return true;
  if (Array.isArray(value)) return value.some(holdsNumberValue);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsNumberValue);
  return false;
}

/** Most answers hold no number a double cannot carry; those take JSON.stringify, about 2.5x faster. */
export function stringifyExactJson(value: unknown): string {
  if (!holdsNumberValue(value)) return JSON.stringify(value) ?? 'null';
  return stringify(value, null, undefined, [numberValueStringifier]) ?? 'null';
}
