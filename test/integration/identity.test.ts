import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import * as z from 'zod';
import { handler as createHandler } from '../../functions/create/handler';
import { handler as deleteHandler } from '../../functions/delete/handler';
import { handler as listHandler } from '../../functions/list/handler';
import { lambdaContext, toEvent } from '../../scripts/local/event';
import { defineModel } from '../../shared/models/define';
import { recordLayout } from '../../shared/store/layout/index-build';
import { useApi } from '../support/api';
import { bookmarkModel } from '../support/bookmark-model';
import { tableSnapshot } from '../support/table-snapshot';

// Who the caller is (docs/security.md): an API_TOKENS entry's subject and claims, a JWT's as API
// Gateway hands them to Lambda, and never a JWT a client sends the local server. Two models this
// file adds (so it runs on the local server only: a model a test adds never reaches the bundles):
// bookmarks each caller owns, and a ledger each tenant keeps apart.
const bookmark = bookmarkModel();
const ledger = defineModel({
  name: 'ledger',
  description: "a line of one tenant's ledger",
  schema: z.strictObject({ org: z.string().optional(), item: z.string() }),
  tenant: { field: 'org', claim: 'tenant' },
});
jest.mock('../../shared/models/catalog', () => jest.requireActual('../support/catalog-with').catalogWith(['bookmark', 'ledger'], () => [bookmark, ledger]));
jest.mock('../../shared/models/every-model', () => {
  const actual = jest.requireActual('../../shared/models/every-model');
  return { allModels: () => [...actual.allModels(), bookmark, ledger] };
});

const TOKENS = {
  ann: { scopes: ['read', 'write'], sub: 'ann', claims: { tenant: 'acme' } },
  bob: { scopes: ['read', 'write'], sub: 'bob', claims: { tenant: 'globex' } },
  // The list form, as before issue 33: scopes and nothing else.
  legacy: ['read', 'write'],
  root: { scopes: ['read', 'write', 'admin'], sub: 'root', claims: { tenant: 'acme' } },
};
process.env.API_TOKENS = JSON.stringify(TOKENS);

const api = useApi();
beforeAll(async () => {
  for (const model of [bookmark, ledger]) await recordLayout(model);
});
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const route = (model: string, op: string) => `/api/db/${model}/${op}`;

let n = 0;
/** An id no other test uses. */
const fresh = (prefix: string) => `${prefix}-${++n}`;

/** The ids a caller lists of a model. */
const listed = async (model: string, headers: Record<string, string>) => {
  const r = await api.post(route(model, 'list'), {}, headers);
  expect(r.status).toBe(200);
  return (r.body.data.items as { id: string }[]).map((i) => i.id).sort();
};

describe('API_TOKENS: an entry names its subject and claims', () => {
  test("a record is its creator's: the owner field holds the entry's sub, and another subject does not see it", async () => {
    const id = fresh('bm');
    const made = await api.post(route('bookmark', 'create'), { id, data: { url: 'https://a.example' } }, as('ann'));
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ id, owner: 'ann', url: 'https://a.example' });
    expect(await listed('bookmark', as('ann'))).toContain(id);
    expect(await listed('bookmark', as('bob'))).not.toContain(id);
    expect((await api.post(route('bookmark', 'get_one'), { filters: { id } }, as('bob'))).status).toBe(404);
    // admin crosses owners.
    expect(await listed('bookmark', as('root'))).toContain(id);
  });

  test("a record is its creator's tenant's: the tenant field holds the entry's claim, ids are per tenant", async () => {
    const id = fresh('line');
    const acme = await api.post(route('ledger', 'create'), { id, data: { item: 'anvil' } }, as('ann'));
    const globex = await api.post(route('ledger', 'create'), { id, data: { item: 'globe' } }, as('bob'));
    expect([acme.status, globex.status]).toEqual([201, 201]);
    expect(acme.body.data).toMatchObject({ id, org: 'acme', item: 'anvil' });
    expect(globex.body.data).toMatchObject({ id, org: 'globex', item: 'globe' });
    // root carries the acme claim: admin or not, it reaches acme's records only.
    expect((await api.post(route('ledger', 'get_one'), { filters: { id } }, as('root'))).body.data).toMatchObject({ item: 'anvil' });
    expect((await api.post(route('ledger', 'get_one'), { filters: { id } }, as('bob'))).body.data).toMatchObject({ item: 'globe' });
  });

  test('a list-form entry names no subject and no claim: a model with row rules refuses it, one without serves it as before', async () => {
    const before = await tableSnapshot();
    const own = await api.post(route('bookmark', 'create'), { data: { url: 'https://l.example' } }, as('legacy'));
    expect([own.status, own.body.data.error, own.body.data.required_claim]).toEqual([403, 'forbidden', 'sub']);
    const tenant = await api.post(route('ledger', 'list'), {}, as('legacy'));
    expect([tenant.status, tenant.body.data.error, tenant.body.data.required_claim]).toEqual([403, 'forbidden', 'tenant']);
    expect(await tableSnapshot()).toEqual(before);
    expect((await api.post(route('reaction', 'count'), {}, as('legacy'))).status).toBe(200);
  });
});

describe('delete: write deletes what the caller owns', () => {
  test("by id and by filter, its own records go and another owner's stay; allow_all stays admin's", async () => {
    const [mine, also, theirs] = [fresh('bm'), fresh('bm'), fresh('bm')];
    await api.post(route('bookmark', 'create'), { data: [{ url: 'https://1.example' }, { url: 'https://2.example' }], ids: [mine, also] }, as('ann'));
    await api.post(route('bookmark', 'create'), { id: theirs, data: { url: 'https://3.example' } }, as('bob'));
    const byId = await api.post(route('bookmark', 'delete'), { filters: { id: theirs } }, as('ann'));
    expect([byId.status, byId.body.data.deleted, byId.body.data.matched]).toEqual([200, 0, 0]);
    const byFilter = await api.post(route('bookmark', 'delete'), { filters: { id: { $in: [mine, theirs] } } }, as('ann'));
    expect([byFilter.status, byFilter.body.data.deleted]).toEqual([200, 1]);
    const all = await api.post(route('bookmark', 'delete'), { filters: {}, allow_all: true }, as('ann'));
    expect([all.status, all.body.data.required_scope]).toEqual([403, 'admin']);
    expect(await listed('bookmark', as('ann'))).toContain(also);
    expect(await listed('bookmark', as('ann'))).not.toContain(mine);
    expect(await listed('bookmark', as('bob'))).toContain(theirs);
  });

  test("a transaction's delete of another owner's record deletes nothing", async () => {
    const theirs = fresh('bm');
    await api.post(route('bookmark', 'create'), { id: theirs, data: { url: 'https://4.example' } }, as('bob'));
    const r = await api.post('/api/db/transaction', { operations: [{ op: 'delete', model: 'bookmark', id: theirs }] }, as('ann'));
    // As for an id no record holds: outside its owner's reach the record does not exist.
    expect([r.status, r.body.data.error, r.body.data.reason]).toEqual([409, 'conflict', 'missing']);
    expect(await listed('bookmark', as('bob'))).toContain(theirs);
    const own = await api.post('/api/db/transaction', { operations: [{ op: 'delete', model: 'bookmark', id: theirs }] }, as('bob'));
    expect(own.status).toBe(200);
    expect(await listed('bookmark', as('bob'))).not.toContain(theirs);
  });
});

describe("a JWT that API Gateway's authorizer verified", () => {
  const saved = { ...process.env };
  beforeAll(() => {
    process.env.JWT_SCOPE_PREFIX = 'recordgate/';
    // A JWT deployment's secret: no API token at all.
    process.env.API_TOKENS = '{}';
  });
  afterAll(() => {
    process.env = { ...saved };
  });

  /**
   * The event as an HTTP API with a JWT authorizer hands it to Lambda (payload 2.0): the verified
   * claims under requestContext.authorizer.jwt.claims, each a string, numbers and arrays as text,
   * and the scopes in the `scope` claim (AWS, "Control access to HTTP APIs with JWT authorizers").
   */
  const jwtEvent = (model: string, op: string, body: unknown, claims: Record<string, string>): APIGatewayProxyEventV2 => {
    const event = toEvent(
      {
        method: 'POST',
        rawPath: `/api/db/${model}/${op}`,
        rawQueryString: '',
        headers: { 'content-type': 'application/json', authorization: 'Bearer eyJ.verified.by-api-gateway' },
        httpVersion: '1.1',
        sourceIp: '203.0.113.9',
        port: 443,
        scheme: 'https',
      },
      Buffer.from(JSON.stringify(body)),
      `POST /api/db/{model_name}/${op}`,
      { model_name: model },
    );
    const jwt = { claims: { iss: 'https://idp.example/', exp: '1924992000', scope: 'recordgate/read recordgate/write', ...claims }, scopes: null };
    return { ...event, requestContext: { ...event.requestContext, authorizer: { jwt } } } as unknown as APIGatewayProxyEventV2;
  };
  const answer = async (handler: (e: APIGatewayProxyEventV2, c: Context) => Promise<unknown>, event: APIGatewayProxyEventV2, fn: string) => {
    const r = (await handler(event, lambdaContext(fn, fresh('req')))) as { statusCode: number; body: string };
    return { status: r.statusCode, data: JSON.parse(r.body).data };
  };

  test('its sub owns what it creates, and its tenant claim is the tenant: the same rules as a token', async () => {
    const [bm, line] = [fresh('bm'), fresh('line')];
    const carol = { sub: 'carol', tenant: 'acme' };
    const made = await answer(createHandler, jwtEvent('bookmark', 'create', { id: bm, data: { url: 'https://c.example' } }, carol), 'create');
    expect(made).toMatchObject({ status: 201, data: { id: bm, owner: 'carol' } });
    const booked = await answer(createHandler, jwtEvent('ledger', 'create', { id: line, data: { item: 'crate' } }, carol), 'create');
    expect(booked).toMatchObject({ status: 201, data: { id: line, org: 'acme' } });
    // Another subject of another tenant sees neither.
    const dave = { sub: 'dave', tenant: 'globex' };
    const bookmarks = await answer(listHandler, jwtEvent('bookmark', 'list', {}, dave), 'list');
    const lines = await answer(listHandler, jwtEvent('ledger', 'list', {}, dave), 'list');
    expect(bookmarks.data.items.map((i: { id: string }) => i.id)).not.toContain(bm);
    expect(lines.data.items.map((i: { id: string }) => i.id)).not.toContain(line);
    // write deletes its own record.
    expect(await answer(deleteHandler, jwtEvent('bookmark', 'delete', { filters: { id: bm } }, dave), 'delete')).toMatchObject({
      status: 200,
      data: { deleted: 0 },
    });
    expect(await answer(deleteHandler, jwtEvent('bookmark', 'delete', { filters: { id: bm } }, carol), 'delete')).toMatchObject({
      status: 200,
      data: { deleted: 1 },
    });
  });

  test("an Idempotency-Key is one request of one view: the same person's token for another tenant is refused the key, and never replays the first tenant's answer", async () => {
    const [line, key] = [fresh('line'), fresh('key')];
    const keyed = (claims: Record<string, string>) => {
      const event = jwtEvent('ledger', 'create', { id: line, data: { item: 'keyed' } }, claims);
      return { ...event, headers: { ...event.headers, 'idempotency-key': key } } as APIGatewayProxyEventV2;
    };
    const first = await answer(createHandler, keyed({ sub: 'frank', tenant: 'acme' }), 'create');
    expect(first).toMatchObject({ status: 201, data: { id: line, org: 'acme' } });
    // One person (iss and sub), now signed in to globex: its view of the model is another.
    const other = await answer(createHandler, keyed({ sub: 'frank', tenant: 'globex' }), 'create');
    expect(other).toMatchObject({ status: 422, data: { error: 'idempotency_key_reused' } });
    expect(JSON.stringify(other)).not.toContain('acme');
    // A refreshed token of the first view (another exp) replays the first answer.
    const again = await answer(createHandler, keyed({ sub: 'frank', tenant: 'acme', exp: '1924999999' }), 'create');
    expect(again).toEqual(first);
  });

  test('a JWT without the tenant claim reaches no tenant; one without sub owns nothing', async () => {
    const noTenant = await answer(listHandler, jwtEvent('ledger', 'list', {}, { sub: 'erin' }), 'list');
    expect(noTenant).toMatchObject({ status: 403, data: { error: 'forbidden', required_claim: 'tenant' } });
    const noSub = await answer(createHandler, jwtEvent('bookmark', 'create', { data: { url: 'https://e.example' } }, { tenant: 'acme' }), 'create');
    expect(noSub).toMatchObject({ status: 403, data: { error: 'forbidden', required_claim: 'sub' } });
  });
});

describe('a JWT sent to the local server is never taken for its claims', () => {
  // Unsigned ("alg": "none"), claiming to be ann of acme: a client can write any such text.
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const forged = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'ann', tenant: 'acme', scope: 'read write admin' })}.`;
  const withForged = { authorization: `Bearer ${forged}` };
  let annsBookmark: string;
  let acmeLine: string;
  beforeAll(async () => {
    [annsBookmark, acmeLine] = [fresh('bm'), fresh('line')];
    expect((await api.post(route('bookmark', 'create'), { id: annsBookmark, data: { url: 'https://f.example' } }, as('ann'))).status).toBe(201);
    expect((await api.post(route('ledger', 'create'), { id: acmeLine, data: { item: 'forged-at' } }, as('ann'))).status).toBe(201);
  });

  test('with tokens configured it is an unknown token: 401, nothing read or written', async () => {
    const before = await tableSnapshot();
    for (const [model, op, body] of [
      ['bookmark', 'list', {}],
      ['bookmark', 'get_one', { filters: { id: annsBookmark } }],
      ['ledger', 'get_one', { filters: { id: acmeLine } }],
      ['ledger', 'create', { data: { item: 'forged' } }],
      ['bookmark', 'delete', { filters: { id: annsBookmark } }],
    ] as const) {
      const r = await api.post(route(model, op), body, withForged);
      expect([r.status, r.body.data.error]).toEqual([401, 'unauthorized']);
      expect(r.text).not.toMatch(/forged-at|f\.example/);
    }
    expect(await tableSnapshot()).toEqual(before);
  });

  describe('open mode (no token configured): the loopback caller, which has no subject and no claims', () => {
    beforeAll(() => {
      delete process.env.API_TOKENS;
    });
    afterAll(() => {
      process.env.API_TOKENS = JSON.stringify(TOKENS);
    });

    test('a tenant model refuses it, with or without the forged JWT: no tenant is reached, nothing written', async () => {
      const before = await tableSnapshot();
      for (const headers of [withForged, {}]) {
        for (const [op, body] of [
          ['list', {}],
          ['get_one', { filters: { id: acmeLine } }],
          ['count', {}],
          ['create', { data: { item: 'forged', org: 'acme' } }],
        ] as const) {
          const r = await api.post(route('ledger', op), body, headers);
          expect([r.status, r.body.data.error, r.body.data.required_claim]).toEqual([403, 'forbidden', 'tenant']);
          expect(r.text).not.toContain('forged-at');
        }
      }
      expect(await tableSnapshot()).toEqual(before);
    });

    test("the forged sub is not the caller's: a create is not stamped with it, and what it sees is what it sees without the JWT", async () => {
      const made = await api.post(route('bookmark', 'create'), { data: { url: 'https://g.example' } }, withForged);
      expect(made.status).toBe(201);
      expect(made.body.data.owner).toBeUndefined();
      expect(await listed('bookmark', withForged)).toEqual(await listed('bookmark', {}));
    });
  });
});
