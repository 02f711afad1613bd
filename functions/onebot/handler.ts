import { httpHandler } from '../../shared/http/middleware';
import { onebotReceive } from '../../shared/onebot/receive';

// The receiver parses the body itself, after checking the signature over its exact bytes.
export const handler = httpHandler(onebotReceive, { parseBody: false });
