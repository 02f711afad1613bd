import { feedReplayOperation } from '../../shared/api/feed-replay';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('feed_replay', feedReplayOperation);
