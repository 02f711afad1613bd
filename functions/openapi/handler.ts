import { httpHandler } from '../../shared/http/middleware';
import { openApiOperation } from '../../shared/openapi/operation';

export const handler = httpHandler('openapi', openApiOperation);
