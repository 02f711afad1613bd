import * as z from 'zod';
import { version } from '../../package.json';
import { failure, success } from '../answer/envelope';
import { errorEnvelopeSchema, successEnvelope } from '../answer/envelope-schema';
import { ERROR_STATUS, type ErrorCode } from '../errors';
import { tokenScopeOf } from '../auth/scopes';
import { FUNCTION_DESCRIPTORS, type ServiceTag } from '../manifest/functions';
import { ROUTES, type Route } from '../manifest/routes';
import { LIMITS } from '../limits';
import type { Model } from '../models/model';
import { allModels } from '../models/every-model';
import { rulesOf } from '../api/field-rules/described';
import { byStatus, ERROR_MEANING } from './errors';
import { exampleOf } from './examples';
import { filterComponents } from './filter-schema';
import { componentSchemas, jsonSchemaOf, type JsonSchema } from './json-schema';
import { RECORD_OPERATIONS, SERVICE_OPERATIONS, type OperationDoc } from './route-docs';

export type OpenApiDocument = JsonSchema & { openapi: '3.1.0'; paths: Record<string, Record<string, JsonSchema>> };

const COMPONENTS = '#/components/schemas/';
const MODEL_PARAM = '{model_name}';
const SERVICE_TAGS: Readonly<Record<ServiceTag, string>> = {
  service: 'Models and health',
  onebot: 'OneBot 11 HTTP POST receivers',
  documentation: 'This document and the page that shows it',
  feed: "The change feed's delivery state and replays (admin)",
};

/** Named schemas: the first id given to a schema object is its component name, later uses refer to it. */
function namedSchemas() {
  const registry = z.registry<{ id: string }>();
  return {
    registry,
    ref(schema: z.core.$ZodType, id: string): JsonSchema {
      if (!registry.has(schema)) registry.add(schema, { id });
      return { $ref: `${COMPONENTS}${registry.get(schema)!.id}` };
    },
  };
}

const scopeOf = (route: Route) => tokenScopeOf(route.scope);

/** A route's tag: its function's, or the model its path names. */
function tagOf(route: Route, model?: Model): string {
  const { tag } = FUNCTION_DESCRIPTORS[route.function];
  if (tag !== 'model') return tag;
  if (!model) throw new Error(`${route.method} ${route.path} is tagged by its model but names none`);
  return model.name;
}

/** "read (models, get_one, ...), write (...)", from the scopes in ROUTES. */
function scopesText(): string {
  const byScope = new Map<string, Set<string>>();
  for (const route of ROUTES) {
    const scope = scopeOf(route);
    if (scope) byScope.set(scope, (byScope.get(scope) ?? new Set()).add(route.function));
  }
  return [...byScope].map(([scope, fns]) => `${scope} (${[...fns].join(', ')})`).join(', ');
}

const openText = () => [...new Set(ROUTES.filter((r) => !scopeOf(r)).map((r) => r.path))].join(', ');

const description = () => `A validated record API over named data models stored in DynamoDB, and OneBot 11 HTTP POST receivers.

Every JSON answer is an envelope: \`{"status": "success", "message": "ok", "data": ...}\`, or
\`{"status": "error", "message": ..., "data": {"error": <code>, "details"?: [{path, message}], ...}}\` with a
stable code in \`data.error\` (the error_envelope schema lists them all).

Numbers are exact: \`18446744073709551617\` and \`0.1\` come back with the same digits (read the body with a
lossless JSON parser to keep them).

**Authentication**: \`Authorization: Bearer <token>\`. A token has scopes: ${scopesText()}; delete takes admin
on a model without an owner rule, and \`allow_all\` needs admin on any route. Open to everyone: ${openText()}. The local server without API_TOKENS answers loopback
clients with every scope.

**Limits**: bodies up to ${LIMITS.maxBodyBytes} bytes; up to ${LIMITS.maxCreateBatch} records per create;
list pages of ${LIMITS.defaultPageSize} records by default, at most ${LIMITS.maxPageSize}; one list page or count
reads at most ${LIMITS.maxScannedPerRequest} records before answering with a cursor; update and delete change at most
${LIMITS.maxAffected} records (\`max_affected\`); filters nest ${LIMITS.maxFilterDepth} deep with at most
${LIMITS.maxFilterConditions} conditions and ${LIMITS.maxInValues} values per $in.`;

function errorResponses(codes: ReadonlyArray<ErrorCode>, meanings: Partial<Record<ErrorCode, string>> = {}): Record<string, JsonSchema> {
  const meaning = (code: ErrorCode) => meanings[code] ?? ERROR_MEANING[code];
  return Object.fromEntries(
    byStatus(codes).map(([status, group]) => [
      String(status),
      {
        description: group.map((code) => `\`${code}\`: ${meaning(code)}`).join('\n\n'),
        content: {
          'application/json': {
            schema: { $ref: `${COMPONENTS}error_envelope` },
            examples: Object.fromEntries(group.map((code) => [code, { summary: meaning(code), value: failure(code, meaning(code)) }])),
          },
        },
      },
    ]),
  );
}

function successResponse(doc: OperationDoc, name: string, outputs: ReturnType<typeof namedSchemas>): JsonSchema {
  const { description, data, raw, components, headers } = doc.success;
  for (const [id, schema] of Object.entries(components ?? {})) outputs.ref(schema, id);
  if (data) {
    const example = success(exampleOf(jsonSchemaOf(data, 'output')));
    return {
      description,
      ...(headers ? { headers } : {}),
      content: { 'application/json': { schema: outputs.ref(successEnvelope(data), `${name}_answer`), example } },
    };
  }
  if (raw) return { description, content: { [raw.mediaType]: { schema: raw.schema } } };
  return { description };
}

/**
 * The body reader (shared/http/middleware/read-body.ts) reads every body as JSON text, whatever
 * its Content-Type: a browser's form or text/plain request (no CORS preflight) is read alike.
 * Those media types carry the same JSON as a string, which JSON Schema's content keywords say.
 */
const JSON_AS_TEXT = ['text/plain', 'application/x-www-form-urlencoded', '*/*'];

function requestContent(schema: JsonSchema, examples: Record<string, unknown>): Record<string, JsonSchema> {
  const asText = { schema: { type: 'string', contentMediaType: 'application/json', contentSchema: schema } };
  return {
    'application/json': { schema, examples: Object.fromEntries(Object.entries(examples).map(([name, value]) => [name, { value }])) },
    ...Object.fromEntries(JSON_AS_TEXT.map((type) => [type, asText])),
  };
}

function operation(
  route: Route,
  doc: OperationDoc,
  id: string,
  tag: string,
  inputs: ReturnType<typeof namedSchemas>,
  outputs: ReturnType<typeof namedSchemas>,
): JsonSchema {
  const scope = doc.scope ?? scopeOf(route);
  const errors: ErrorCode[] = [...doc.errors, ...(scope ? (['unauthorized', 'forbidden'] as const) : [])];
  return {
    operationId: id,
    summary: route.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [tag],
    // An open operation says so (an empty requirement), so no tool assumes a default applies.
    security: scope ? [{ bearerAuth: [scope] }] : [],
    ...(doc.parameters ? { parameters: doc.parameters } : {}),
    ...(doc.request
      ? {
          requestBody: {
            required: !doc.request.schema.safeParse({}).success,
            description: 'JSON, whatever the Content-Type says: sent as text/plain or a form type, the body is the same JSON text',
            content: requestContent(inputs.ref(doc.request.schema, doc.request.name ?? `${id}_request`), doc.request.examples),
          },
        }
      : {}),
    responses: {
      [String(doc.success.status)]: successResponse(doc, id, outputs),
      ...doc.more,
      ...errorResponses(errors, doc.meanings),
      default: { $ref: '#/components/responses/error' },
    },
  };
}

/** get_api_db_models, post_root, post_onebot_v11_http_slash: unique as long as paths are. */
function slug(route: Route): string {
  const path = route.path === '/' ? 'root' : route.path.replace(/(.)\/$/, '$1_slash');
  return `${route.method.toLowerCase()}_${path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '')}`;
}

/**
 * The OpenAPI 3.1 document of every route in ROUTES, per model where a route takes {model_name}:
 * the models this process serves, or the ones a deployment is built with (infra/function-bundle.ts).
 */
export function buildOpenApiDocument(models: ReadonlyArray<Model> = allModels()): OpenApiDocument {
  const visible = models.filter((m) => m.access !== 'hidden');
  const inputs = namedSchemas();
  const outputs = namedSchemas();
  outputs.ref(errorEnvelopeSchema, 'error_envelope');
  const paths: OpenApiDocument['paths'] = {};
  const add = (path: string, route: Route, op: JsonSchema) => {
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: op };
  };
  for (const route of ROUTES) {
    if (route.path.includes(MODEL_PARAM)) {
      const describe = RECORD_OPERATIONS[route.function as keyof typeof RECORD_OPERATIONS];
      if (!describe) throw new Error(`no documentation for the per-model route ${route.path}`);
      for (const model of visible) {
        // A read-only model is written by the service: its write operations only ever answer 403.
        if (model.access === 'read_only' && FUNCTION_DESCRIPTORS[route.function].writes) continue;
        const doc = describe(model);
        add(route.path.replace(MODEL_PARAM, model.name), route, operation(route, doc, `${model.name}_${route.function}`, tagOf(route, model), inputs, outputs));
      }
    } else {
      const describe = SERVICE_OPERATIONS[route.function];
      if (!describe) throw new Error(`no documentation for the route ${route.method} ${route.path}`);
      add(route.path, route, operation(route, describe(route, visible), slug(route), tagOf(route), inputs, outputs));
    }
  }
  const used = new Set<string>(ROUTES.map((r) => FUNCTION_DESCRIPTORS[r.function].tag));
  return {
    openapi: '3.1.0',
    info: { title: 'recordgate', version, description: description(), license: { name: 'MIT', identifier: 'MIT' } },
    // The service's own root: the deployed ApiUrl, or the local server, whichever serves this document.
    servers: [{ url: '/', description: 'This service' }],
    tags: [
      // The model's rules for any caller (the models endpoint says which apply to the one asking).
      ...visible.map((m) => {
        const rules = rulesOf(m);
        return {
          name: m.name,
          description: m.description,
          ...(Object.keys(rules).length > 0 ? { 'x-recordgate-rules': rules } : {}),
          // The field whose epoch seconds expire a record (docs/record-api.md, "Expiring records").
          ...(m.ttl === undefined ? {} : { 'x-recordgate-ttl': m.ttl }),
        };
      }),
      ...Object.entries(SERVICE_TAGS)
        .filter(([name]) => used.has(name))
        .map(([name, description]) => ({ name, description })),
    ],
    paths,
    components: {
      schemas: {
        ...componentSchemas(inputs.registry, 'input'),
        ...filterComponents(visible),
        ...componentSchemas(outputs.registry, 'output'),
      },
      responses: {
        error: {
          description: `Any error: \`data.error\` is one of ${Object.keys(ERROR_STATUS)
            .map((c) => `\`${c}\``)
            .join(', ')}`,
          content: { 'application/json': { schema: { $ref: `${COMPONENTS}error_envelope` } } },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (API_TOKENS). Scopes: read, write, admin; each operation lists the one it needs.',
        },
      },
    },
  };
}
