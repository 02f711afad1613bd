import { losslessJson } from '../json/lossless';

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * A number a JS number cannot hold exactly (18446744073709551617, 0.1000000000000000055511151231257827),
 * kept as its JSON digits. The client's own type, so that importing the client loads no AWS SDK;
 * the service reads the same digits into the SDK's NumberValue and stores them as they are.
 */
export class JsonNumber {
  readonly value: string;

  constructor(value: string) {
    if (!JSON_NUMBER.test(value)) throw new TypeError(`${JSON.stringify(value)} is not a JSON number`);
    this.value = value;
  }

  /** Same spelling as the SDK's NumberValue.from, for code moving between the two. */
  static from(value: string | number | bigint): JsonNumber {
    return new JsonNumber(String(value));
  }

  toString(): string {
    return this.value;
  }
}

/** A number of a request body or an answer, exact either way. */
export type ClientNumber = number | JsonNumber;

const clientJson = losslessJson(
  (value): value is JsonNumber => value instanceof JsonNumber,
  (digits) => new JsonNumber(digits),
);

/** Parses an answer: a number a JS number cannot hold exactly becomes a JsonNumber. */
export const parseAnswer: (text: string) => unknown = clientJson.parse;

/** Writes a request body: a JsonNumber goes out digit for digit. */
export const stringifyBody: (value: unknown) => string = clientJson.stringify;
