import { onebotQueueUrl } from '../../config';
import { countMisconfiguration } from '../../health/emf';
import { causeOf, log } from '../../log';
import { misconfiguration } from '../../store/sdk-errors';
import type { Delivery } from '../delivery';
import { toKept } from './kept';
import { sendToQueue } from './queue';
import { spoolDelivery } from './spool';

/**
 * Keeps a verified delivery durably while the database is unreachable or misconfigured, so the
 * sender can be answered 2xx (no OneBot sender re-sends on an HTTP status): the SQS queue in AWS
 * (`ONEBOT_QUEUE_URL`), the spool in the data directory locally.
 */
export async function keepDelivery(delivery: Delivery, cause: unknown): Promise<void> {
  const queueUrl = onebotQueueUrl();
  if (queueUrl) await sendToQueue(queueUrl, delivery);
  else await spoolDelivery(toKept(delivery));
  const kept = { where: queueUrl ? 'queue' : 'spool', received_at: delivery.receivedAt } as const;
  const problem = misconfiguration(cause);
  // A misconfiguration is the operator's to fix, logged as one (the code the record routes log too), not as an outage.
  if (!problem) log.warn('onebot_event_kept', kept);
  else {
    log.error('misconfigured', { ...kept, kept: true, problem: problem.kind, ...causeOf(cause) });
    countMisconfiguration();
  }
}
