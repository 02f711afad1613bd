import * as z from 'zod';
import { defineModel } from '../../shared/models/define';

/** A model with nested fields, several index slots and shards, used to test the store directly. */
export function noteModel(name = 'note', shards = 1) {
  return defineModel({
    name,
    description: 'test model',
    schema: z.strictObject({
      title: z.string(),
      rank: z.number().optional(),
      tags: z.array(z.string()).optional(),
      meta: z.object({ author: z.object({ login: z.string() }).optional(), stars: z.number().optional() }).optional(),
      done: z.boolean().optional(),
    }),
    indexed: ['rank', 'title'],
    shards,
  });
}

/**
 * The model the filter property tests run on: each indexed slot holds a different kind (a
 * string, a number, a field mixing both), plus an array, a boolean and a free-form object.
 */
export function fuzzModel(name: string, shards: number) {
  return defineModel({
    name,
    description: 'filter property test model',
    schema: z.strictObject({
      s: z.string(),
      n: z.number().optional(),
      mix: z.union([z.number(), z.string()]).optional(),
      tags: z.array(z.string()).optional(),
      flag: z.boolean().optional(),
      obj: z.record(z.string(), z.unknown()).optional(),
      mark: z.string().optional(),
    }),
    indexed: ['s', 'n', 'mix'],
    shards,
  });
}

/**
 * The model of issue 19's findings: arrays of strings, of mixed scalars and of objects, strict
 * nested objects, a nullable one, free-form ones (z.record, z.looseObject), and two indexed fields.
 */
export function queryModel(name: string, shards: number) {
  return defineModel({
    name,
    description: 'query findings test model',
    schema: z.strictObject({
      s: z.string().optional(),
      n: z.number().optional(),
      tags: z.array(z.string()).optional(),
      arr: z.array(z.union([z.number(), z.string(), z.boolean()])).optional(),
      items: z.array(z.object({ k: z.string() })).optional(),
      meta: z.object({ a: z.number().optional(), inner: z.object({ b: z.string().optional() }).optional() }).optional(),
      nmeta: z.object({ a: z.number().optional() }).nullable().optional(),
      free: z.record(z.string(), z.unknown()).optional(),
      loose: z.looseObject({ a: z.number().optional() }).optional(),
    }),
    indexed: ['n', 's'],
    shards,
  });
}

/**
 * The model of issue 32's update operators: a bounded stock, a free counter, a bounded array,
 * a nested object, a string its model checks by regex, and an indexed field.
 */
export function stockModel(name: string) {
  return defineModel({
    name,
    description: 'update operators test model',
    schema: z.strictObject({
      title: z.string(),
      stock: z.int().min(0).optional(),
      n: z.number().optional(),
      tags: z.array(z.string()).max(3).optional(),
      meta: z.object({ read: z.boolean().optional(), source: z.string().optional(), stars: z.number().optional() }).optional(),
      code: z
        .string()
        .regex(/^[a-z]+$/)
        .optional(),
      rank: z.number().optional(),
      label: z.union([z.number(), z.string()]).optional(),
    }),
    indexed: ['rank'],
  });
}

/** The model of issue 32's transfers: a balance that may not go below 0, and an indexed owner. */
export function accountModel(name: string) {
  return defineModel({
    name,
    description: 'a balance that may not go below 0',
    schema: z.strictObject({ owner: z.string(), balance: z.int().min(0), note: z.string().optional() }),
    indexed: ['owner'],
  });
}

/** Records that expire: `until` is the ttl field (epoch seconds, optional), over two shards and an index. */
export function leaseModel(name: string) {
  return defineModel({
    name,
    description: 'a lease that expires at until',
    schema: z.strictObject({ holder: z.string(), until: z.int().optional(), n: z.int().optional() }),
    indexed: ['holder'],
    shards: 2,
    ttl: 'until',
  });
}

/**
 * A model with every rule of docs/security.md: an owner, a tenant, fields hidden by scope and by
 * claim, a read-only one. Only documents are built from it (the OpenAPI lint): its row rules
 * need no engine there.
 */
export function ruledModel(name = 'ruled_bookmark') {
  return defineModel({
    name,
    description: 'a bookmark kept per owner within a tenant',
    schema: z.strictObject({
      url: z.string(),
      owner: z.string().optional(),
      org: z.string().optional(),
      note: z.string().optional(),
      rating: z.number().optional(),
      status: z.enum(['new', 'checked']).default('new'),
    }),
    indexed: ['owner', 'rating'],
    owner: 'owner',
    tenant: { field: 'org', claim: 'org_id' },
    fields: { note: { visibleTo: { claim: 'reviewer' } }, rating: { visibleTo: { scope: 'admin' } }, status: { readOnly: true } },
  });
}

/**
 * Numbers only exact arithmetic keeps (big integers, long decimals), an object field, and an owner
 * and a tenant: what an export must carry to the digit, across every tenant and owner. Its moved
 * twin (`ledger_moved`) is the same records re-keyed: other shards, another field indexed first.
 */
export function ledgerModel(name = 'ledger', { shards = 3, indexed = ['big'] }: { shards?: number; indexed?: Array<'big' | 'amount'> } = {}) {
  return defineModel({
    name,
    description: 'exact numbers, an object, an owner and a tenant',
    schema: z.strictObject({
      big: z.number(),
      amount: z.number(),
      meta: z.object({ label: z.string(), digits: z.number().optional(), tags: z.array(z.string()).optional() }),
      owner: z.string().optional(),
      org: z.string().optional(),
    }),
    indexed,
    shards,
    owner: 'owner',
    tenant: { field: 'org', claim: 'org_id' },
  });
}

/**
 * A model with aggregates (issue 35): records grouped by `content` (and `flag`), counted, with
 * the exact decimal `score` summed; and one sum over every record. Served by `npm start` in the
 * aggregate suites (test/support/served-models/tally-catalog.ts).
 */
export function tallyModel(name = 'tally') {
  return defineModel({
    name,
    description: 'aggregates test model',
    schema: z.strictObject({ content: z.string(), score: z.number().optional(), flag: z.boolean().optional(), note: z.string().optional() }),
    indexed: ['content'],
    shards: 2,
    aggregates: {
      by_content: { group_by: ['content'], count: true, sum: ['score'] },
      by_content_flag: { group_by: ['content', 'flag'], count: true },
      total: { group_by: [], sum: ['score'] },
    },
  });
}

/**
 * Records that expire and are aggregated (issue 35): `until` is the ttl field; counted and `n`
 * summed per `holder`, and counted over every record. Its aggregates must drop a record once
 * it expires, not when it is deleted.
 */
export function leaseTallyModel(name: string, { aggregated = true } = {}) {
  return defineModel({
    name,
    description: 'leases counted per holder, that expire at until',
    schema: z.strictObject({ holder: z.string(), until: z.int().optional(), n: z.int().optional() }),
    shards: 2,
    ttl: 'until',
    // Without them: the same model before it declared them, for a backfill.
    ...(aggregated ? { aggregates: { by_holder: { group_by: ['holder'], count: true, sum: ['n'] }, all: { group_by: [], count: true } } } : {}),
  });
}
