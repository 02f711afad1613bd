import fc from 'fast-check';
import { defineModel } from '../../../shared/models/define';
import { counterKey, groupKey, groupPart, stateOrder } from '../../../shared/aggregates/keys';
import * as z from 'zod';

const value = fc.oneof(fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ unit: 'binary', maxLength: 200 }));

describe('aggregate group keys', () => {
  it('give two groups one key only when every value is equal', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 4 }), fc.array(value, { minLength: 1, maxLength: 4 }), (a, b) => {
        const same = a.length === b.length && a.every((v, i) => Object.is(v === 0 ? 0 : v, b[i] === 0 ? 0 : b[i]));
        expect(groupKey(a) === groupKey(b)).toBe(same);
      }),
    );
  });

  it('order numbers by value and strings by their bytes', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), (a, b) => {
        if (a < b) expect(Buffer.compare(Buffer.from(groupPart(a)), Buffer.from(groupPart(b)))).toBeLessThan(0);
      }),
    );
    expect(groupPart('a') < groupPart('b')).toBe(true);
  });

  it('keep a long value within a bounded key', () => {
    expect(Buffer.byteLength(groupKey(['x'.repeat(5000), 'y'.repeat(5000), 'z'.repeat(5000), 'w'.repeat(5000)]))).toBeLessThan(800);
    expect(groupPart('x'.repeat(5000))).not.toBe(groupPart(`${'x'.repeat(4999)}y`));
  });

  it('tell apart strings made of the escape characters', () => {
    const tricky = ['a\u0000', 'a\u0001\u0001', 'a\u0001\u0002', 'a\u0001', 'a', 'a\u0000b'];
    expect(new Set(tricky.map((s) => groupKey([s, 'x']))).size).toBe(tricky.length);
  });

  it('order a record state after every earlier one: recreation, version, then its delete', () => {
    expect(stateOrder('2026-01-01T00:00:00.000Z', 9, true) < stateOrder('2026-01-01T00:00:00.001Z', 1, false)).toBe(true);
    expect(stateOrder('2026-01-01T00:00:00.000Z', 9, false) < stateOrder('2026-01-01T00:00:00.000Z', 10, false)).toBe(true);
    expect(stateOrder('2026-01-01T00:00:00.000Z', 9, false) < stateOrder('2026-01-01T00:00:00.000Z', 9, true)).toBe(true);
  });

  it('never make an empty sort key: the one group of an aggregate without group fields has one of its own', () => {
    const model = defineModel({
      name: 'keyed',
      description: 'x',
      schema: z.strictObject({ n: z.number() }),
      aggregates: { total: { group_by: [], sum: ['n'] } },
    });
    expect(counterKey(model, 'total', []).sk).not.toBe('');
    expect(counterKey(model, 'total', [], 'acme\u0000').sk).toBe('acme\u0000');
  });
});
