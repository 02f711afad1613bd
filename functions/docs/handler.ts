import { docsOperation } from '../../shared/docs/operations';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('docs', docsOperation);
