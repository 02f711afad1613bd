import { parse, stringify } from 'lossless-json';
import { fitsJsNumber } from './decimal';

/**
 * JSON whose numbers keep every digit, for a given class of big number: a number a JS number
 * holds exactly is a number, any other becomes a `Big` made from its digits and is written back
 * as them. The service's Big is the SDK's NumberValue (shared/json/exact-json.ts), which
 * DynamoDB stores digit for digit. (The typed client has a parser of its own, client/src/json.ts,
 * so that its package has no dependency.)
 */
export function losslessJson<Big extends { toString(): string }>(isBig: (value: unknown) => value is Big, bigFrom: (digits: string) => Big) {
  const toNumber = (text: string): number | Big => (fitsJsNumber(text) ? Number(text) : bigFrom(text));
  const bigStringifier = { test: isBig, stringify: (value: unknown) => (value as Big).toString() };
  return {
    toNumber,
    // lossless-json defines a '__proto__' key as an own property, so a body cannot set a prototype.
    parse: (text: string): unknown => parse(text, null, toNumber),
    stringify: (value: unknown): string => stringify(value, null, undefined, [bigStringifier]) ?? 'null',
  };
}
