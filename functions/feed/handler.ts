import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { consumeStream } from '../../shared/feed/consume';
import { publish } from '../../shared/feed/publish';
import { SqsDeliveryQueue } from '../../shared/feed/queue-sqs';
import { currentSubscriptions } from '../../shared/feed/subscriptions-setting';
import { withinInvocation } from '../../shared/invocation';

const queue = new SqsDeliveryQueue();

// The table's stream, after the writes answered: each record's change to the subscriptions it
// matches, webhooks through the deliveries' queue, buses through EventBridge.
export const handler = (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> =>
  withinInvocation(context, async () => consumeStream(event.Records, { subscriptions: await currentSubscriptions(), queue, publish }));
