import { spawnSync } from 'node:child_process';
import { tokenScopeOf } from '../../../shared/auth/scopes';
import { ERROR_STATUS } from '../../../shared/errors';
import { FUNCTION_DESCRIPTORS } from '../../../shared/manifest/functions';
import { ROUTES } from '../../../shared/manifest/routes';
import { allModels } from '../../../shared/models/every-model';
import { buildOpenApiDocument } from '../../../shared/openapi/document';
import { RECORD_OPERATIONS } from '../../../shared/openapi/route-docs';

const doc = buildOpenApiDocument();
const visible = allModels().filter((m) => m.access !== 'hidden');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
type Op = { operationId: string; security?: Array<Record<string, string[]>>; responses: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

const operations = (): Array<{ key: string; op: Op }> =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([m, op]) => ({ key: `${m.toUpperCase()} ${path}`, op: op as unknown as Op })),
  );

/**
 * The validator package is ESM only and reads its schemas through import.meta.url, which jest's
 * CommonJS transform cannot run: it checks the document in a plain node process instead.
 */
function validate(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator';
    const text = await new Promise((done) => { let s = ''; process.stdin.on('data', (c) => s += c).on('end', () => done(s)); });
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(text));
    process.stdout.write(JSON.stringify({ ...result, version: validator.version }));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { input: JSON.stringify(document), cwd: process.cwd(), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout);
}

test('the document is valid OpenAPI 3.1 by a maintained validator', () => {
  expect(doc.openapi).toBe('3.1.0');
  expect(validate(doc)).toEqual({ valid: true, version: '3.1' });
});

test('the validator does catch a broken document', () => {
  const broken = { ...doc, paths: { '/x': { get: { responses: { 200: { content: 'nope' } } } } } };
  expect(validate(broken).valid).toBe(false);
});

test('every route in ROUTES is documented, per model where it takes {model_name}, and nothing else; read-only models show no writes', () => {
  const expected = ROUTES.flatMap((r) =>
    r.path.includes('{model_name}')
      ? visible
          .filter((m) => m.access !== 'read_only' || !FUNCTION_DESCRIPTORS[r.function].writes)
          .map((m) => `${r.method} ${r.path.replace('{model_name}', m.name)}`)
      : [`${r.method} ${r.path}`],
  );
  expect(visible.some((m) => m.access === 'read_only')).toBe(true);
  expect(
    operations()
      .map((o) => o.key)
      .sort(),
  ).toEqual([...new Set(expected)].sort());
});

test('operation ids are unique', () => {
  const ids = operations().map((o) => o.op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
});

test.each(visible.map((m) => m.name))(
  'get_one and list of %s answer its record as read (only id always there), create (unless read-only) the whole record',
  (name) => {
    const schemas = (doc.components as { schemas: Record<string, any> }).schemas; // eslint-disable-line @typescript-eslint/no-explicit-any
    const model = visible.find((m) => m.name === name)!;
    const fields = ['id', ...Object.keys(model.jsonSchema.properties), '_created_at', '_updated_at', '_version'];
    const read = schemas[`${name}_read_record`];
    expect(Object.keys(read.properties)).toEqual(fields);
    expect(read.required).toEqual(['id']);
    const answer = (fn: string) => schemas[`${name}_${fn}_answer`].properties.data;
    expect(answer('get_one')).toEqual({ $ref: `#/components/schemas/${name}_read_record` });
    expect(answer('list').properties.items.items).toEqual({ $ref: `#/components/schemas/${name}_read_record` });
    if (model.access === 'read_only') {
      expect(schemas[`${name}_record`]).toBeUndefined();
      return expect(doc.paths[`/api/db/${name}/create`]).toBeUndefined();
    }
    expect(Object.keys(schemas[`${name}_record`].properties)).toEqual(fields);
    const ref = { $ref: `#/components/schemas/${name}_record` };
    expect(answer('create').anyOf[0]).toEqual(ref);
    expect(answer('create').anyOf[1].properties.records.items).toEqual(ref);
    const create = doc.paths[`/api/db/${name}/create`].post as Op;
    expect(Object.keys(create.responses)).toContain('201');
  },
);

test("the error envelope lists every error code, and each error answer is filed under its code's status", () => {
  const schemas = (doc.components as { schemas: Record<string, any> }).schemas; // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(schemas.error_envelope.properties.data.properties.error.enum).toEqual(Object.keys(ERROR_STATUS));
  for (const { key, op } of operations()) {
    for (const [status, response] of Object.entries(op.responses)) {
      const examples = response.content?.['application/json']?.examples ?? {};
      for (const [code, example] of Object.entries(examples) as Array<[keyof typeof ERROR_STATUS, { value: { data: { error: string } } }]>) {
        expect({ key, code, status: String(ERROR_STATUS[code]) }).toEqual({ key, code, status });
        expect(example.value.data.error).toBe(code);
      }
    }
    expect(op.responses.default).toEqual({ $ref: '#/components/responses/error' });
  }
});

test('operations with a scope ask for a bearer token with it; open ones ask for nothing', () => {
  expect((doc.components as { securitySchemes: unknown }).securitySchemes).toEqual({
    bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
  });
  for (const route of ROUTES) {
    const path = route.path.replace('{model_name}', visible[0].name);
    const op = doc.paths[path][route.method.toLowerCase()] as Op;
    const scope = tokenScopeOf(route.scope);
    if (scope) {
      // reaction has no owner rule: deleting its records takes admin (shared/access/scopes.ts).
      expect(op.security).toEqual([{ bearerAuth: [route.function === 'delete' ? 'admin' : scope] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
    } else {
      expect(op.security).toEqual([]);
    }
  }
});

test("the OneBot receiver's 401 and 403 speak of signatures and bots, as it answers, not of bearer tokens", () => {
  const op = doc.paths['/onebot/v11/'].post as Op;
  expect(op.security).toEqual([]);
  expect(op.responses['401'].description).toContain('X-Signature');
  expect(op.responses['403'].description).toContain('ONEBOT_SELF_IDS');
  expect(op.responses['400'].description).toContain('X-Self-ID');
  expect(JSON.stringify(op.responses)).not.toMatch(/bearer|scope/i);
});

test('the document names its server', () => {
  expect(doc.servers).toEqual([{ url: '/', description: 'This service' }]);
});

test.each(visible.flatMap((m) => Object.entries(RECORD_OPERATIONS).map(([fn, describe]) => [m.name, fn, describe(m)] as const)))(
  'the request examples of %s %s pass the schema that checks the request',
  (_name, _fn, described) => {
    for (const example of Object.values(described.request!.examples)) {
      expect(described.request!.schema.safeParse(example).error).toBeUndefined();
    }
  },
);

test('every request body is listed as JSON and as the other content types the body reader reads as JSON', () => {
  for (const { key, op } of operations()) {
    const body = (op as unknown as { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } }).requestBody;
    if (!body) continue;
    const json = body.content['application/json'].schema;
    expect({ key, types: Object.keys(body.content) }).toEqual({ key, types: ['application/json', 'text/plain', 'application/x-www-form-urlencoded', '*/*'] });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '*/*']) {
      expect(body.content[type].schema).toEqual({ type: 'string', contentMediaType: 'application/json', contentSchema: json });
    }
  }
});

test.each(visible.map((m) => m.name))("%s's reads and writes take its own filter, order_by and fields", (name) => {
  const schemas = (doc.components as { schemas: Record<string, any> }).schemas; // eslint-disable-line @typescript-eslint/no-explicit-any
  const model = visible.find((m) => m.name === name)!;
  const list = schemas[`${name}_list_request`].properties;
  expect(list.filters).toEqual({ $ref: `#/components/schemas/${name}_filter` });
  expect(list.order_by.anyOf[0].enum).toEqual(['id', ...model.indexed].flatMap((f) => [f, `-${f}`]));
  expect(list.fields.items.enum).toEqual(['id', ...Object.keys(model.storedSchema.properties), '_created_at', '_updated_at', '_version']);
  expect(Object.keys(schemas[`${name}_filter`].properties)).toEqual([...list.fields.items.enum, '$and', '$or', '$not']);
  expect(schemas[`${name}_filter`].additionalProperties).toBe(false);
  for (const fn of ['get_one', 'count', 'update', 'delete']) {
    if (schemas[`${name}_${fn}_request`]) expect(schemas[`${name}_${fn}_request`].properties.filters).toEqual({ $ref: `#/components/schemas/${name}_filter` });
  }
});

test('get_one answers an ETag; update and delete take If-Match and create If-None-Match, and each may answer 412', () => {
  const reaction = (op: string) => doc.paths[`/api/db/reaction/${op}`].post as unknown as Op & { parameters: Array<{ name: string; in: string }> };
  expect(Object.keys(reaction('get_one').responses['200'].headers)).toEqual(['ETag']);
  const headers = (op: string) =>
    reaction(op)
      .parameters.filter((p) => p.in === 'header')
      .map((p) => p.name);
  expect(headers('update')).toEqual(['Idempotency-Key', 'If-Match']);
  expect(headers('delete')).toEqual(['Idempotency-Key', 'If-Match']);
  expect(headers('create')).toEqual(['Idempotency-Key', 'If-None-Match']);
  for (const op of ['create', 'update', 'delete']) expect(reaction(op).responses['412'].description).toContain('precondition_failed');
});
