import { fallbackOperation } from '../../shared/http/fallback';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler(fallbackOperation, { parseBody: false });
