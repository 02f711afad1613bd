import { stringifyExactJson } from '../json/exact-json';
import type { Model } from '../models/model';
import { buildOpenApiDocument } from './document';

/** The bytes GET /openapi.json answers, written into the openapi bundle when it is built (infra/function-bundle.ts). */
export const openApiDocumentText = (models?: ReadonlyArray<Model>): string => stringifyExactJson(buildOpenApiDocument(models));
