/**
 * Decimal numbers as DynamoDB sees them: up to 38 significant digits, magnitude between
 * 1E-130 and 9.99...E+125. JavaScript numbers cannot carry all of those exactly, so the
 * service keeps number text and only turns it into a JS number when nothing is lost.
 */

export interface Decimal {
  sign: -1 | 0 | 1;
  /** Significant digits without leading or trailing zeros ('' for zero). */
  digits: string;
  /** Value = 0.digits * 10^exponent. */
  exponent: number;
}

const NUMBER_TEXT = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

export const MAX_SIGNIFICANT_DIGITS = 38;
const MIN_EXPONENT = -129; // 1E-130 = 0.1E-129
const MAX_EXPONENT = 126; // 9.99E+125 = 0.999E+126

export function parseDecimal(text: string): Decimal | undefined {
  const match = NUMBER_TEXT.exec(text);
  if (!match) return undefined;
  const [, minus, intPart, fracPart = '', expPart = '0'] = match;
  const all = intPart + fracPart;
  const firstNonZero = all.search(/[1-9]/);
  if (firstNonZero < 0) return { sign: 0, digits: '', exponent: 0 };
  const digits = all.slice(firstNonZero).replace(/0+$/, '');
  const exponent = intPart.length - firstNonZero + Number(expPart);
  return { sign: minus ? -1 : 1, digits, exponent };
}

/** Why DynamoDB would refuse this number, or undefined when it can store it. */
export function dynamoNumberProblem(text: string): string | undefined {
  const d = parseDecimal(text);
  if (!d) return 'is not a finite number';
  if (d.sign === 0) return undefined;
  if (d.digits.length > MAX_SIGNIFICANT_DIGITS) {
    return `has ${d.digits.length} significant digits; at most ${MAX_SIGNIFICANT_DIGITS} can be stored`;
  }
  if (d.exponent > MAX_EXPONENT || d.exponent < MIN_EXPONENT) {
    return 'is outside the storable range 1E-130 to 9.9999999999999999999999999999999999999E+125';
  }
  return undefined;
}

export function sameDecimal(a: Decimal, b: Decimal): boolean {
  return a.sign === b.sign && a.digits === b.digits && a.exponent === b.exponent;
}

/** True when a JS number holds exactly the value the text spells. */
export function fitsJsNumber(text: string): boolean {
  const n = Number(text);
  // The SDK refuses to marshal integers past 2^53 as JS numbers, exact or not.
  if (!Number.isFinite(n) || (Number.isInteger(n) && !Number.isSafeInteger(n))) return false;
  const parsed = parseDecimal(text);
  const shortest = parseDecimal(String(n));
  return parsed !== undefined && shortest !== undefined && sameDecimal(parsed, shortest);
}

/**
 * A string whose byte order is the numeric order, for sort keys. Negative numbers complement
 * their exponent and digits and end with '~' so that a shorter mantissa sorts after a longer one.
 */
export function sortableDecimal(text: string): string {
  const d = parseDecimal(text);
  if (!d) throw new RangeError(`not a number: ${text}`);
  if (d.sign === 0) return '1';
  const biased = String(d.exponent + 500).padStart(4, '0');
  if (d.sign > 0) return `2${biased}${d.digits}`;
  const complement = (s: string) => s.replace(/\d/g, (c) => String(9 - Number(c)));
  return `0${complement(biased)}${complement(d.digits)}~`;
}

/** Numeric order of two number texts. */
export function compareDecimal(a: string, b: string): number {
  const x = sortableDecimal(a);
  const y = sortableDecimal(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The shortest plain text of a decimal (scientific only where plain would run past 40 digits). */
function decimalText({ sign, digits, exponent }: Decimal): string {
  if (sign === 0) return '0';
  const minus = sign < 0 ? '-' : '';
  if (exponent > 40 || exponent < -20) return `${minus}0.${digits}e${exponent}`;
  if (exponent <= 0) return `${minus}0.${'0'.repeat(-exponent)}${digits}`;
  if (exponent >= digits.length) return `${minus}${digits}${'0'.repeat(exponent - digits.length)}`;
  return `${minus}${digits.slice(0, exponent)}.${digits.slice(exponent)}`;
}

/** The number text of -x, exact (zero stays 0). */
export const negateDecimal = (text: string): string => (text.startsWith('-') ? text.slice(1) : text === '0' ? text : `-${text}`);

/**
 * The exact sum of two number texts, as text: 0.1 + 0.2 is 0.3 and 18446744073709551616 + 1
 * keeps every digit (an $inc must add as DynamoDB's ADD does, not as doubles do).
 */
export function addDecimal(a: string, b: string): string {
  const [x, y] = [a, b].map((text) => {
    const d = parseDecimal(text);
    if (!d) throw new RangeError(`not a number: ${text}`);
    return d;
  });
  // Each as an integer times 10^scale, both brought to the smaller scale.
  const scale = (d: Decimal) => d.exponent - d.digits.length;
  const low = Math.min(scale(x), scale(y));
  const integer = (d: Decimal) => (d.sign === 0 ? 0n : BigInt(d.sign) * BigInt(d.digits) * 10n ** BigInt(scale(d) - low));
  const sum = integer(x) + integer(y);
  return decimalText(parseDecimal(`${sum}e${low}`)!);
}
