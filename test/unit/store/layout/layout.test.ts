import { AggregateBuilding, IndexBuilding, LayoutMismatch } from '../../../../shared/store/errors';
import * as z from 'zod';
import { defineModel } from '../../../../shared/models/define';
import {
  aggregateFingerprint,
  aggregateRefusal,
  type AggregateRecord,
  incompatibleChange,
  layoutOf,
  NO_PROGRESS,
  readinessOf,
  schemaFingerprint,
  type Layout,
} from '../../../../shared/store/layout/layout';
import { noteModel } from '../../../support/models';

// noteModel indexes rank (a number) then title (a string), over 4 shards.
const note = noteModel('note', 4);
const stored = (change: Partial<Layout>): Layout => ({ ...layoutOf(note, 3), ...change });

describe('layoutOf', () => {
  test("is the definition's own layout, every index ready, at the version given", () => {
    expect(layoutOf(note, 3)).toEqual({
      slots: ['rank', 'title'],
      kinds: [['number'], ['string']],
      shards: 4,
      building: [],
      progress: NO_PROGRESS,
      version: 3,
    });
  });

  test('copies the definition, so a change to the layout never reaches the model', () => {
    const layout = layoutOf(note);
    layout.slots.push('done');
    layout.kinds![0].push('string');
    expect(note.indexed).toEqual(['rank', 'title']);
    expect(layoutOf(note).kinds).toEqual([['number'], ['string']]);
  });
});

describe('incompatibleChange', () => {
  test('none for the layout the definition asks for, nor for fields indexed since (appended slots)', () => {
    expect(incompatibleChange(note, stored({}))).toBeUndefined();
    expect(incompatibleChange(note, stored({ slots: ['rank'], kinds: [['number']] }))).toBeUndefined();
    expect(incompatibleChange(note, stored({ slots: [], kinds: [] }))).toBeUndefined();
  });

  test('another shard count: records would be looked for in the wrong partitions; the fix names the stored count', () => {
    const change = incompatibleChange(note, stored({ shards: 2 }));
    expect(change?.change).toMatch(/stored with shards: 2, but its definition says shards: 4/);
    expect(change?.fix).toMatch(/put shards back to 2/);
    // The other way out, with the tool that takes it (issue 36).
    expect(change?.fix).toMatch(/move the records to a new model with npm run export and npm run import \(docs\/record-api.md/);
  });

  test('records found outside the partition their id hashes to (NaN shards) are told as another shard count', () => {
    const change = incompatibleChange(note, stored({ shards: Number.NaN }));
    expect(change?.change).toMatch(/stored with another shard count/);
    expect(change?.fix).not.toMatch(/back to/);
  });

  test('a slot dropped or reordered is refused', () => {
    expect(incompatibleChange(note, stored({ slots: ['title', 'rank'] }))?.change).toMatch(/drops or reorders an index slot/);
    expect(incompatibleChange(note, stored({ slots: ['rank', 'title', 'done'] }))?.change).toMatch(/drops or reorders an index slot/);
  });

  test("a kind of value the index holds that the field no longer declares is refused; a layout without kinds takes the definition's", () => {
    const change = incompatibleChange(note, stored({ kinds: [['number', 'string'], ['string']] }));
    expect(change?.change).toMatch(/index on rank holds number and string values/);
    expect(change?.fix).toMatch(/declare rank to hold number and string again/);
    expect(incompatibleChange(note, stored({ kinds: undefined }))).toBeUndefined();
  });
});

describe('readinessOf', () => {
  test('with nothing building, every order is allowed and no index is held back', () => {
    const ready = readinessOf(note, stored({}));
    expect([...ready.building]).toEqual([]);
    expect(() => ready.checkOrder('title')).not.toThrow();
  });

  test('an order by a building index is refused with its progress; the others are allowed', () => {
    const progress = { shard: 1, after: 'n9', done: 40 };
    const readiness = readinessOf(note, stored({ building: ['title'], progress }));
    expect([...readiness.building]).toEqual(['title']);
    expect(() => readiness.checkOrder('rank')).not.toThrow();
    expect(() => readiness.checkOrder('title')).toThrow(IndexBuilding);
    expect(() => readiness.checkOrder('title')).toThrow(/40 records done, shard 2 of 4/);
  });
});

const fingerprinted = (name: string, shards: number, rank: z.ZodType) =>
  defineModel({ name, description: 'test', schema: z.strictObject({ title: z.string(), rank }), indexed: ['title'], shards });

test("a model's schema fingerprint follows its stored schema only: not its name or shards, but a field's type", () => {
  expect(schemaFingerprint(fingerprinted('a', 1, z.number()))).toBe(schemaFingerprint(fingerprinted('b', 4, z.number())));
  expect(schemaFingerprint(fingerprinted('a', 1, z.number()))).not.toBe(schemaFingerprint(fingerprinted('a', 1, z.string())));
  expect(schemaFingerprint(fingerprinted('a', 1, z.number()))).not.toBe(schemaFingerprint(fingerprinted('a', 1, z.number().optional())));
});

describe('aggregateRefusal', () => {
  const counted = defineModel({
    name: 'counted_note',
    description: 'a model with an aggregate',
    schema: z.strictObject({ title: z.string(), rank: z.number() }),
    aggregates: { by_title: { group_by: ['title'], count: true } },
  });
  const definition = aggregateFingerprint(counted.aggregates.by_title);
  const recorded = (state: AggregateRecord['state'], fingerprint = definition): Layout => ({
    ...layoutOf(counted, 1),
    aggregates: { by_title: { definition: fingerprint, state, progress: { shard: 0, after: 'r9', done: 10 } } },
  });

  test('none once ready, nor before the layout recorded it (a model holding nothing)', () => {
    expect(aggregateRefusal(counted, recorded('ready'), 'by_title')).toBeUndefined();
    expect(aggregateRefusal(counted, layoutOf(counted), 'by_title')).toBeUndefined();
  });

  test('building: its progress, for the 503', () => {
    expect(aggregateRefusal(counted, recorded('building'), 'by_title')).toEqual(new AggregateBuilding('counted_note', 'by_title', { shard: 0, done: 10 }, 1));
  });

  test('removed and declared again, or kept for another definition: a mismatch whose fix is a new name', () => {
    for (const layout of [recorded('removed'), recorded('ready', 'another')]) {
      const refusal = aggregateRefusal(counted, layout, 'by_title');
      expect(refusal).toBeInstanceOf(LayoutMismatch);
      expect((refusal as LayoutMismatch).fix).toMatch(/new name/);
    }
  });

  test('the fingerprint holds group_by in order, count and the summed fields in any order', () => {
    const f = (d: { group_by: string[]; count?: boolean; sum?: string[] }) => aggregateFingerprint(d);
    expect(f({ group_by: ['a', 'b'], sum: ['x', 'y'] })).toBe(f({ group_by: ['a', 'b'], sum: ['y', 'x'] }));
    expect(f({ group_by: ['a', 'b'] })).not.toBe(f({ group_by: ['b', 'a'] }));
    expect(f({ group_by: ['a'], count: true })).not.toBe(f({ group_by: ['a'] }));
  });
});
