import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type * as z from 'zod';
import {
  countAnswerSchema,
  createdSchema,
  deleteAnswerSchema,
  healthAnswerSchema,
  listAnswerSchema,
  modelsAnswerSchema,
  recordSchema,
  updateAnswerSchema,
} from '../../shared/api/responses';
import { assetsDir, DOCS_ASSET_NAMES, INIT_SCRIPT, PACKAGE_ASSETS } from '../../shared/docs/assets';
import { errorEnvelopeSchema, successEnvelope } from '../../shared/answer/envelope-schema';
import { reaction } from '../../shared/models/reaction';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { useApi } from '../support/api';

// Tokens are configured, so these tests also show that the document and the page stay open.
process.env.API_TOKENS = JSON.stringify({ root: ['read', 'write', 'admin'] });

const api = useApi();
const root = { authorization: 'Bearer root' };

describe('GET /openapi.json', () => {
  test('answers the generated document, without a token', async () => {
    const r = await api.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(JSON.parse(r.text)).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });
});

describe('GET /docs', () => {
  test('answers the Swagger UI page, without a token, loading nothing from elsewhere', async () => {
    const r = await api.get('/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(r.text).toContain('<div id="swagger-ui"></div>');
    const sources = [...r.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source).toMatch(/^docs\/[\w.-]+$/);
  });

  test.each(Object.keys(PACKAGE_ASSETS))('serves %s from swagger-ui-dist, byte for byte', async (name) => {
    const r = await fetch(`${api.url}/docs/${name}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(PACKAGE_ASSETS[name as keyof typeof PACKAGE_ASSETS]);
    expect(Buffer.from(await r.arrayBuffer()).equals(readFileSync(join(assetsDir(), name)))).toBe(true);
  });

  test('sends the script gzipped to a client that accepts it', async () => {
    const r = await fetch(`${api.url}/docs/swagger-ui-bundle.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect((await r.text()).length).toBe(readFileSync(join(assetsDir(), 'swagger-ui-bundle.js'), 'utf8').length);
  });

  test('serves its start-up script, which loads ../openapi.json', async () => {
    const r = await api.get(`/docs/${INIT_SCRIPT}`);
    expect(r.status).toBe(200);
    expect(r.text).toContain("'../openapi.json'");
    expect(DOCS_ASSET_NAMES).toContain(INIT_SCRIPT);
  });

  test.each(['..%2Fpackage.json', '..%2F..%2F..%2Fpackage.json', 'index.html', 'swagger-ui-bundle.js.map', '%2Fetc%2Fpasswd'])(
    'refuses %s: only allow-listed names are served',
    async (name) => {
      const r = await api.get(`/docs/${name}`);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ status: 'error', data: { error: 'route_not_found' } });
    },
  );
});

describe('real answers match the documented schemas', () => {
  const expectShape = (schema: z.ZodType, body: unknown) => expect(schema.safeParse(body).error).toBeUndefined();
  const reactionOp = (op: string, body: unknown) => api.post(`/api/db/reaction/${op}`, body, root);

  test('every record operation, models and health', async () => {
    const one = await reactionOp('create', { id: 'doc-1', data: { user_id: 7, user_name: 'ann', content: '+1' } });
    expect(one.status).toBe(201);
    expectShape(successEnvelope(createdSchema(reaction)), one.body);
    expectShape(successEnvelope(recordSchema(reaction)), one.body);
    const batch = await reactionOp('create', {
      data: [
        { user_id: 8, content: 'eyes' },
        { user_id: 9, content: 'heart' },
      ],
    });
    expectShape(successEnvelope(createdSchema(reaction)), batch.body);
    expectShape(successEnvelope(recordSchema(reaction)), (await reactionOp('get_one', { filters: { id: 'doc-1' } })).body);
    expectShape(successEnvelope(listAnswerSchema(reaction)), (await reactionOp('list', { limit: 2 })).body);
    expectShape(successEnvelope(countAnswerSchema), (await reactionOp('count', {})).body);
    expectShape(successEnvelope(updateAnswerSchema), (await reactionOp('update', { filters: { id: 'doc-1' }, values: { user_name: null } })).body);
    expectShape(successEnvelope(deleteAnswerSchema), (await reactionOp('delete', { filters: { id: 'doc-1' } })).body);
    expectShape(successEnvelope(modelsAnswerSchema), (await api.get('/api/db/models', root)).body);
    expectShape(successEnvelope(healthAnswerSchema), (await api.get('/api/db/health')).body);
  });

  test('error answers', async () => {
    const invalid = await reactionOp('create', { data: { user_id: '1', content: '+1' } });
    expect(invalid.status).toBe(422);
    expectShape(errorEnvelopeSchema, invalid.body);
    expectShape(errorEnvelopeSchema, (await api.post('/api/db/reaction/list', {})).body);
  });
});

/**
 * The served document, checked with ajv (independent of zod, as Prism or a generated client would
 * check): each answer against the schema the document gives its operation and status.
 */
describe('real answers validate against the served document', () => {
  let validate: (path: string, status: number, body: unknown) => unknown;
  beforeAll(async () => {
    const doc = JSON.parse((await api.get('/openapi.json')).text);
    const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
    // Refs inside the document are #/components/schemas/...: resolved against the document itself.
    ajv.addSchema({ $id: 'openapi.json', components: doc.components });
    validate = (path, status, body) => {
      const { $ref } = doc.paths[path].post.responses[status].content['application/json'].schema;
      const check = ajv.compile({ $ref: `openapi.json${$ref}` });
      return check(body) ? [] : check.errors;
    };
    const seeded = await api.post(
      '/api/db/reaction/create',
      {
        data: [
          { user_id: 1, user_name: 'ann', content: '+1' },
          { user_id: 2, content: 'eyes' },
        ],
        ids: ['v-1', 'v-2'],
      },
      root,
    );
    expect(seeded.status).toBe(201);
  });
  const read = async (op: string, body: unknown, status = 200) => {
    const r = await api.post(`/api/db/reaction/${op}`, body, root);
    expect(r.status).toBe(status);
    return validate(`/api/db/reaction/${op}`, status, JSON.parse(r.text));
  };

  test.each([
    ['get_one', { filters: { id: 'v-1' } }],
    ['get_one', { filters: { id: 'v-1' }, fields: ['content'] }],
    ['get_one', { filters: { id: 'v-2' }, fields: ['user_name', '_version'] }],
    ['list', { filters: { id: { $begins_with: 'v-' } } }],
    ['list', { filters: { id: { $begins_with: 'v-' } }, fields: ['user_id'] }],
    ['list', { filters: { id: { $begins_with: 'v-' } }, fields: ['user_name'] }],
  ])('%s %j', async (op, body) => {
    expect(await read(op, body)).toEqual([]);
  });

  test('create, one and a batch, and an error answer', async () => {
    expect(await read('create', { data: { user_id: 3, content: 'heart' } }, 201)).toEqual([]);
    expect(await read('create', { data: [{ user_id: 4, content: 'heart' }] }, 201)).toEqual([]);
    expect(await read('get_one', { filters: { id: 'none' } }, 404)).toEqual([]);
  });

  test('the check is not vacuous: a read without its id, or with a field the model lacks, fails', () => {
    const path = '/api/db/reaction/get_one';
    expect(validate(path, 200, { status: 'success', message: 'ok', data: { content: '+1' } })).not.toEqual([]);
    expect(validate(path, 200, { status: 'success', message: 'ok', data: { id: 'v-1', nope: 1 } })).not.toEqual([]);
  });
});
