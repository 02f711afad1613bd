import { aggregateOperation } from '../../shared/api/aggregate';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('aggregate', aggregateOperation);
