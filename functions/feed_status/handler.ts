import { feedStatusOperation } from '../../shared/api/feed-status';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('feed_status', feedStatusOperation);
