import { modelsOperation } from '../../shared/api/models';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('models', modelsOperation);
