import { createOperation } from '../../shared/api/operations';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('create', createOperation);
