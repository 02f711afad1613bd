import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { storeQueued } from '../../shared/onebot/queue';

// Stores the OneBot deliveries the receiver kept in the queue while the database was unreachable.
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> => storeQueued(event);
