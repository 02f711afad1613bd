import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverQueued } from '../../shared/feed/deliver-queued';
import { currentSubscriptions } from '../../shared/feed/subscriptions-setting';
import { withinInvocation } from '../../shared/invocation';

// One attempt of each webhook delivery the FIFO queue hands over; retries wait hidden in the queue.
export const handler = (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
  withinInvocation(context, async () => deliverQueued(event, { subscriptions: await currentSubscriptions() }));
