import fc from 'fast-check';
import { fuzzed } from '../support/fuzz';
import { addDecimal, compareDecimal, dynamoNumberProblem, fitsJsNumber, parseDecimal, sortableDecimal } from '../../shared/json/decimal';

describe('parseDecimal', () => {
  test.each([
    ['0', { sign: 0, digits: '', exponent: 0 }],
    ['-0.000', { sign: 0, digits: '', exponent: 0 }],
    ['1', { sign: 1, digits: '1', exponent: 1 }],
    ['100', { sign: 1, digits: '1', exponent: 3 }],
    ['0.0012', { sign: 1, digits: '12', exponent: -2 }],
    ['-12.50e2', { sign: -1, digits: '125', exponent: 4 }],
  ])('%s', (text, expected) => {
    expect(parseDecimal(text)).toEqual(expected);
  });

  test('refuses what is not JSON number text', () => {
    expect(parseDecimal('1e')).toBeUndefined();
    expect(parseDecimal('abc')).toBeUndefined();
    expect(parseDecimal('Infinity')).toBeUndefined();
  });
});

describe('fitsJsNumber', () => {
  test('keeps numbers a double holds exactly and refuses the rest', () => {
    expect(fitsJsNumber('0.1')).toBe(true);
    expect(fitsJsNumber('9007199254740991')).toBe(true);
    expect(fitsJsNumber('1e2')).toBe(true);
    expect(fitsJsNumber('18446744073709551617')).toBe(false);
    expect(fitsJsNumber('9007199254740993')).toBe(false);
    expect(fitsJsNumber('0.10000000000000000001')).toBe(false);
    expect(fitsJsNumber('1e400')).toBe(false);
  });
});

describe('dynamoNumberProblem', () => {
  test('accepts 38 significant digits and the storable range', () => {
    expect(dynamoNumberProblem('1'.repeat(38))).toBeUndefined();
    expect(dynamoNumberProblem('1e-130')).toBeUndefined();
    expect(dynamoNumberProblem('9.9999999999999999999999999999999999999e125')).toBeUndefined();
    expect(dynamoNumberProblem('0')).toBeUndefined();
  });
  test('names what DynamoDB would refuse', () => {
    expect(dynamoNumberProblem('1'.repeat(39))).toMatch(/39 significant digits/);
    expect(dynamoNumberProblem('1e126')).toMatch(/outside the storable range/);
    expect(dynamoNumberProblem('1e-131')).toMatch(/outside the storable range/);
  });
});

describe('sortableDecimal', () => {
  const ordered = ['-1e10', '-100', '-1.5', '-1.2', '-1', '-0.5', '0', '1e-5', '0.5', '1', '1.2', '1.5', '2', '10', '100', '1e10'];

  test('byte order is numeric order on hand-picked values', () => {
    const shuffled = [...ordered].reverse();
    const sorted = shuffled.sort((a, b) => Buffer.compare(Buffer.from(sortableDecimal(a)), Buffer.from(sortableDecimal(b))));
    expect(sorted).toEqual(ordered);
  });

  test('equal values encode equally whatever their spelling', () => {
    expect(sortableDecimal('1.50')).toBe(sortableDecimal('15e-1'));
    expect(sortableDecimal('-0')).toBe(sortableDecimal('0'));
  });

  test('byte order is numeric order for any pair of doubles', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), (a, b) => {
        const byNumber = Math.sign(a - b) || 0;
        expect(Math.sign(compareDecimal(String(a), String(b)))).toBe(byNumber);
      }),
      fuzzed(2000, 30),
    );
  });

  test('big integers past 2^53 keep their order', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 37n), max: 10n ** 37n }), fc.bigInt({ min: -(10n ** 37n), max: 10n ** 37n }), (a, b) => {
        const byValue = a < b ? -1 : a > b ? 1 : 0;
        expect(compareDecimal(a.toString(), b.toString())).toBe(byValue);
      }),
      fuzzed(1000, 31),
    );
  });
});

describe('addDecimal', () => {
  test.each([
    ['0.1', '0.2', '0.3'],
    ['18446744073709551616', '1', '18446744073709551617'],
    ['-5', '5', '0'],
    ['1e30', '1', '1000000000000000000000000000001'],
    ['-0.5', '0.25', '-0.25'],
    ['1e-30', '0', '0.1e-29'],
  ])('%s + %s = %s', (a, b, sum) => {
    expect(addDecimal(a, b)).toBe(sum);
  });

  test('agrees with integer arithmetic on scaled values', () => {
    const scaled = fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 12 }));
    const text = ([n, scale]: [bigint, number]) => `${n}e-${scale}`;
    fc.assert(
      fc.property(scaled, scaled, (a, b) => {
        const scale = Math.max(a[1], b[1]);
        const exact = a[0] * 10n ** BigInt(scale - a[1]) + b[0] * 10n ** BigInt(scale - b[1]);
        expect(compareDecimal(addDecimal(text(a), text(b)), `${exact}e-${scale}`)).toBe(0);
      }),
      fuzzed(500, 32),
    );
  });
});
