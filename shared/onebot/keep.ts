import { onebotQueueUrl } from '../config';
import { log } from '../log';
import type { Delivery } from './handle';
import { toKept } from './kept';
import { sendToQueue } from './queue';
import { spoolDelivery } from './spool';

/**
 * Keeps a verified delivery durably while the database is unreachable, so the sender can be
 * answered 2xx (no OneBot sender re-sends on an HTTP status): the SQS queue in AWS
 * (`ONEBOT_QUEUE_URL`), the spool in the data directory locally.
 */
export async function keepDelivery(delivery: Delivery): Promise<void> {
  const queueUrl = onebotQueueUrl();
  if (queueUrl) await sendToQueue(queueUrl, delivery);
  else await spoolDelivery(toKept(delivery));
  log.warn('onebot_event_kept', { where: queueUrl ? 'queue' : 'spool', received_at: delivery.receivedAt });
}
