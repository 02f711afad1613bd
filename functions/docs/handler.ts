import { docsOperation } from '../../shared/docs/serve';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('docs', docsOperation);
