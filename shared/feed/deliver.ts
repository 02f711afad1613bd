import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { callSignal } from '../invocation';
import type { WebhookBody } from './change';
import type { Delivery } from './queue';
import { ATTEMPT_TIMEOUT_MS, delayBefore } from './schedule';
import { signatureHeaders } from './signature';
import type { Subscription } from './subscriptions';

/** A subscription that delivers to a webhook (the other kind goes to an EventBridge bus). */
export type WebhookSubscription = Extract<Subscription, { url: string }>;

export const isWebhook = <S extends Subscription>(subscription: S): subscription is Extract<S, { url: string }> => 'url' in subscription;

/** What one attempt came to, and so what happens to the delivery next. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  /** Attempted again `afterSeconds` from now, as the schedule says. */
  | { kind: 'retry'; afterSeconds: number; failure: string }
  /** The schedule's last attempt failed: the delivery becomes a dead letter (./dead-letters.ts). */
  | { kind: 'dead'; failure: string };

export interface AttemptSettings {
  /** 1-based: the first attempt is 1. */
  attempt: number;
  /** Epoch ms, for `webhook-timestamp`; a test moves it. */
  now?: () => number;
  /** ATTEMPT_TIMEOUT_MS unless a test shortens it (a hung receiver is waited for this long). */
  timeoutMs?: number;
}

/** The body a subscriber receives, as Standard Webhooks' payload structure has it: the event's own time, not the attempt's. */
export const webhookBody = ({ change }: Delivery): WebhookBody => ({ type: `${change.model}.${change.op}`, timestamp: change.time, data: change });

/** What follows a failed attempt: the next on the schedule, or the dead letters after its last. */
export function afterFailure(attempt: number, failure: string): AttemptOutcome {
  const afterSeconds = delayBefore(attempt + 1);
  return afterSeconds === undefined ? { kind: 'dead', failure } : { kind: 'retry', afterSeconds, failure };
}

/**
 * One attempt of a delivery: a signed POST of the change, `webhook-id` its change_id on every
 * attempt, so that a receiver dedupes retries and replays alike. Any 2xx is delivered; any other
 * status, no answer within the timeout or no connection is a failure. Redirects are not followed
 * (a 3xx is a failure): Standard Webhooks asks senders to, since the signed body would otherwise
 * go where the subscription never named, and the fix is the subscription's URL. The failure
 * says the status or the error's code, never a header: the request carries the signature only.
 */
export async function attemptDelivery(delivery: Delivery, subscription: WebhookSubscription, settings: AttemptSettings): Promise<AttemptOutcome> {
  const { attempt, now = Date.now, timeoutMs = ATTEMPT_TIMEOUT_MS } = settings;
  const body = JSON.stringify(webhookBody(delivery));
  const headers = {
    'content-type': 'application/json',
    ...signatureHeaders(delivery.change.change_id, Math.floor(now() / 1000), body, subscription.secret),
  };
  let status: number;
  try {
    status = await postForStatus(subscription.url, headers, body, callSignal(timeoutMs));
  } catch (error) {
    return afterFailure(attempt, failureOf(error));
  }
  return status >= 200 && status < 300 ? { kind: 'delivered', status } : afterFailure(attempt, `${STATUS_FAILURE}${status}`);
}

const STATUS_FAILURE = 'status ';

/** The failure of an attempt the endpoint left unanswered until its timeout: what ./breaker.ts counts. */
export const NO_ANSWER = 'no answer in time';

/** Whether the endpoint answered an attempt (any status), left it unanswered (false), or neither is known (no connection). */
export function answered(outcome: AttemptOutcome): boolean | undefined {
  if (outcome.kind === 'delivered') return true;
  if (outcome.failure === NO_ANSWER) return false;
  return outcome.failure.startsWith(STATUS_FAILURE) ? true : undefined;
}

/**
 * Connections kept open between attempts to the same endpoint, as fetch's would be. node:http,
 * not fetch: an attempt through fetch cost about twice the CPU, and on `npm start` the feed
 * shares the machine's cores with the writes it tells of (docs/feed.md#what-the-feed-costs-a-write).
 */
const AGENTS = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/**
 * POSTs `body` and answers the status once the answer's head came; its body is read and let go,
 * which frees the connection for the next attempt. A redirect is answered as it came, never
 * followed (node:http follows none).
 */
function postForStatus(url: string, headers: Record<string, string>, body: string, signal: AbortSignal | undefined): Promise<number> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: AGENTS[target.protocol as keyof typeof AGENTS],
        signal,
      },
      (response) => {
        // The status is the outcome: a body cut short afterwards (the timeout's abort) changes nothing.
        response.on('error', () => undefined).resume();
        resolve(response.statusCode!);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function failureOf(error: unknown): string {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  if (name === 'TimeoutError' || name === 'AbortError') return NO_ANSWER;
  return code ?? message ?? 'failed';
}
