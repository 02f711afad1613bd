import { createOperation } from '../../shared/api/create';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('create', createOperation);
