import { modelsOperation } from '../../shared/api/operations';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('models', modelsOperation, { parseBody: false });
