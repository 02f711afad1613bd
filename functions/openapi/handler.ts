import { httpHandler } from '../../shared/http/middleware';
import { openApiOperation } from '../../shared/openapi/serve';

export const handler = httpHandler('openapi', openApiOperation);
