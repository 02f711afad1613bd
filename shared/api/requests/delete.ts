import * as zm from '../../zod';
import { bulkGuard } from './common';

export const deleteRequest = zm.strictObject(bulkGuard());
