/**
 * JSON with exact numbers, with no dependency: a number a JS number cannot hold exactly
 * (18446744073709551617, 0.1000000000000000055511151231257827) is read as a JsonNumber holding its
 * digits and written back as them. JSON.parse cannot do this everywhere a client runs (its
 * reviver sees a number's source text only in recent engines), so answers go through this small
 * parser; its output has no prototype set by a "__proto__" key (it defines own properties).
 */

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export class JsonNumber {
  readonly value: string;

  constructor(value: string) {
    if (!NUMBER.test(value)) throw new TypeError(`${JSON.stringify(value)} is not a JSON number`);
    this.value = value;
  }

  /** Same spelling as the AWS SDK's NumberValue.from, for code moving between the two. */
  static from(value: string | number | bigint): JsonNumber {
    return new JsonNumber(String(value));
  }

  toString(): string {
    return this.value;
  }

  toJSON(): string {
    return this.value;
  }
}

/** A number of a request body or an answer, exact either way. */
export type ClientNumber = number | JsonNumber;

/** The digits of a decimal without sign, point or zeros at either end, and where the point goes. */
function significant(text: string): { negative: boolean; digits: string; point: number } {
  const [mantissa = '', exponent = '0'] = text.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const all = whole + fraction;
  const first = all.search(/[1-9]/);
  if (first < 0) return { negative: false, digits: '', point: 0 };
  return { negative, digits: all.slice(first).replace(/0+$/, ''), point: whole.length - first + Number(exponent) };
}

/** Whether Number(text) is the value the text spells, and a safe integer if it is one. */
function fitsNumber(text: string): boolean {
  const n = Number(text);
  if (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n))) return false;
  const spelt = significant(text);
  const held = significant(String(n));
  return spelt.digits === held.digits && spelt.point === held.point && (spelt.digits === '' || spelt.negative === held.negative);
}

// A string token is any quoted run; JSON.parse of the token refuses what JSON strings may not hold (control characters, bad escapes).
const TOKEN = /\s*(?:([{}[\]:,])|("(?:[^"\\]|\\.)*")|(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)|(true|false|null))/y;

/** Parses JSON text; numbers a JS number holds exactly are numbers, others JsonNumbers. */
export function parseJson(text: string): unknown {
  TOKEN.lastIndex = 0;
  const fail = (): never => {
    throw new SyntaxError(`not JSON at character ${TOKEN.lastIndex}`);
  };
  const next = (): RegExpExecArray => {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) {
      TOKEN.lastIndex = at;
      return fail();
    }
    return match;
  };
  const value = (token: RegExpExecArray): unknown => {
    const [, punct, string, number, word] = token;
    if (string !== undefined) return JSON.parse(string);
    if (number !== undefined) return fitsNumber(number) ? Number(number) : new JsonNumber(number);
    if (word !== undefined) return JSON.parse(word);
    if (punct === '[') {
      const items: unknown[] = [];
      let token = next();
      if (token[1] === ']') return items;
      for (;;) {
        items.push(value(token));
        const sep = next()[1];
        if (sep === ']') return items;
        if (sep !== ',') fail();
        token = next();
      }
    }
    if (punct === '{') {
      const object: Record<string, unknown> = {};
      let token = next();
      if (token[1] === '}') return object;
      for (;;) {
        const key = token[2];
        if (key === undefined || next()[1] !== ':') return fail();
        Object.defineProperty(object, JSON.parse(key), { value: value(next()), enumerable: true, writable: true, configurable: true });
        const sep = next()[1];
        if (sep === '}') return object;
        if (sep !== ',') fail();
        token = next();
      }
    }
    return fail();
  };
  const result = value(next());
  if (!/^\s*$/.test(text.slice(TOKEN.lastIndex))) fail();
  return result;
}

/** Writes JSON as JSON.stringify does, a JsonNumber as its digits. */
export function stringifyJson(value: unknown): string {
  const write = (item: unknown): string | undefined => {
    if (item instanceof JsonNumber) return item.value;
    if (item === null || typeof item !== 'object') return JSON.stringify(item);
    if (typeof (item as { toJSON?: unknown }).toJSON === 'function') return write((item as { toJSON(): unknown }).toJSON());
    if (Array.isArray(item)) return `[${item.map((element) => write(element) ?? 'null').join(',')}]`;
    const members = Object.entries(item).flatMap(([key, field]) => {
      const written = write(field);
      return written === undefined ? [] : [`${JSON.stringify(key)}:${written}`];
    });
    return `{${members.join(',')}}`;
  };
  return write(value) ?? 'null';
}
