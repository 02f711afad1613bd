import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withinInvocation } from '../../shared/invocation';
import { storeQueued } from '../../shared/onebot/replay';

// Stores the OneBot deliveries the receiver kept in the queue while the database was unreachable.
export const handler = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => withinInvocation(context, () => storeQueued(event));
