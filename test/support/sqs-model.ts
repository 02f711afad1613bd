import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * A standard SQS queue with a redrive policy, and the Lambda event source mapping that drains it
 * with ReportBatchItemFailures, on a clock the test moves: no SQS stand-in runs here, and the
 * behaviour that matters takes hours. What it holds to, from the AWS guides:
 * - a receive hides a message for the queue's visibility timeout and adds 1 to its receive count;
 * - a message whose receive count has reached maxReceiveCount is moved to the dead-letter queue
 *   on its next receive, keeping its first send time, and expires retention after that time;
 * - ChangeMessageVisibility hides an in-flight message for 0 to 43,200 s counted from the call;
 * - the event source mapping deletes the messages of a batch that are not batch item failures;
 *   a failure is left as it is, visible again when its visibility timeout passes; a function
 *   that throws fails the whole batch.
 * A FIFO queue (`fifo: true`) holds to its own rules too:
 * - a message group's messages are received in the order sent, and none of them while one of
 *   the group is in flight (received, neither deleted nor visible again);
 * - a message sent with the MessageDeduplicationId of one sent in the last five minutes is
 *   taken but not queued again.
 * ChangeMessageVisibilityBatch, SendMessage, SendMessageBatch and GetQueueAttributes are served over HTTP (AWS JSON
 * 1.0), so the service's own SQS client reaches it through the queue URL.
 */
export interface QueueSettings {
  visibilitySeconds: number;
  maxReceiveCount: number;
  retentionSeconds: number;
  deadLetterRetentionSeconds: number;
  batchSize: number;
  fifo?: true;
}

export interface ModelMessage {
  messageId: string;
  body: string;
  sentAt: number;
  receiveCount: number;
  visibleAt: number;
  receipt?: string;
  /** When it reached the dead-letter queue. */
  deadLetteredAt?: number;
  groupId?: string;
}

const DEDUPLICATION_MS = 5 * 60_000;

export type Consumer = (event: SQSEvent) => Promise<SQSBatchResponse>;

const MAX_VISIBILITY_SECONDS = 43_200;

export class SqsModel {
  now: number;
  readonly queue = new Map<string, ModelMessage>();
  readonly deadLetters: ModelMessage[] = [];
  readonly expired: ModelMessage[] = [];
  readonly deleted: ModelMessage[] = [];
  invocations = 0;
  url = '';
  /** FIFO: when each deduplication id was last sent. */
  private readonly deduplicated = new Map<string, number>();
  private server?: Server;

  constructor(
    readonly settings: QueueSettings,
    start = Date.now(),
  ) {
    this.now = start;
  }

  send(body: string, fifo: { groupId?: string; deduplicationId?: string } = {}): string {
    const messageId = randomUUID();
    const { groupId, deduplicationId } = fifo;
    if (deduplicationId !== undefined) {
      if (this.now - (this.deduplicated.get(deduplicationId) ?? Number.NEGATIVE_INFINITY) < DEDUPLICATION_MS) return messageId;
      this.deduplicated.set(deduplicationId, this.now);
    }
    this.queue.set(messageId, { messageId, body, sentAt: this.now, receiveCount: 0, visibleAt: this.now, ...(groupId ? { groupId } : {}) });
    return messageId;
  }

  /** What one poll of the event source mapping receives: visible messages, oldest first; the over-received go to the DLQ. */
  private receive(): ModelMessage[] {
    const batch: ModelMessage[] = [];
    // Sent in one millisecond, messages keep the order they were sent in (the Map's).
    const visible = [...this.queue.values()].filter((m) => m.visibleAt <= this.now).sort((a, b) => a.sentAt - b.sentAt);
    const busy = new Set([...this.queue.values()].filter((m) => this.settings.fifo && m.visibleAt > this.now && m.receiveCount > 0).map((m) => m.groupId));
    for (const message of visible) {
      if (batch.length === this.settings.batchSize) break;
      if (this.settings.fifo && busy.has(message.groupId)) continue;
      if (message.receiveCount >= this.settings.maxReceiveCount) {
        this.queue.delete(message.messageId);
        this.deadLetters.push({ ...message, deadLetteredAt: this.now });
        continue;
      }
      message.receiveCount++;
      message.receipt = randomUUID();
      message.visibleAt = this.now + this.settings.visibilitySeconds * 1000;
      batch.push(message);
    }
    return batch;
  }

  private expire(): void {
    for (const message of [...this.queue.values()]) {
      if (this.now >= message.sentAt + this.settings.retentionSeconds * 1000) {
        this.queue.delete(message.messageId);
        this.expired.push(message);
      }
    }
    for (const [i, message] of [...this.deadLetters.entries()].reverse()) {
      if (this.now >= message.sentAt + this.settings.deadLetterRetentionSeconds * 1000) this.expired.push(...this.deadLetters.splice(i, 1));
    }
  }

  /** Polls and invokes until nothing is visible, then moves the clock to the next message due; stops past `until`. */
  async run(consumer: Consumer, until: number, beforePoll: (now: number) => Promise<void> = async () => undefined): Promise<void> {
    for (;;) {
      this.expire();
      await beforePoll(this.now);
      const batch = this.receive();
      if (batch.length > 0) {
        await this.invoke(consumer, batch);
        continue;
      }
      // Nothing receivable now (a FIFO group's messages may be visible behind one in flight): the next change is a message's visibility ending.
      const due = Math.min(...[...this.queue.values()].map((m) => m.visibleAt).filter((at) => at > this.now));
      if (!Number.isFinite(due) || due > until) return;
      this.now = Math.max(due, this.now);
    }
  }

  /**
   * The event source mapping with at most `slots` invocations at once (its maximum concurrency),
   * on the real clock: a free slot takes the next receivable batch at once, and a slot is held
   * for as long as its invocation runs. Stops once `done()` holds, or nothing is in flight and
   * nothing receivable; waits for the invocations under way.
   */
  async runAtOnce(consumer: Consumer, slots: number, done: () => boolean): Promise<void> {
    const running = new Set<Promise<void>>();
    for (;;) {
      this.now = Date.now();
      this.expire();
      while (running.size < slots && !done()) {
        const batch = this.receive();
        if (batch.length === 0) break;
        const invocation: Promise<void> = this.invoke(consumer, batch).finally(() => running.delete(invocation));
        running.add(invocation);
      }
      if (done() || running.size === 0) break;
      // A slot freed, or a poll's interval: a hidden message may have come due.
      await Promise.race([...running, new Promise((resolve) => setTimeout(resolve, 20))]);
    }
    await Promise.all(running);
  }

  private async invoke(consumer: Consumer, batch: ModelMessage[]): Promise<void> {
    this.invocations++;
    const records = batch.map((m) => this.record(m));
    let failures: Set<string>;
    try {
      failures = new Set((await consumer({ Records: records })).batchItemFailures.map((f) => f.itemIdentifier));
    } catch {
      failures = new Set(batch.map((m) => m.messageId));
    }
    for (const message of batch) {
      if (failures.has(message.messageId)) continue;
      this.queue.delete(message.messageId);
      this.deleted.push(message);
    }
  }

  private record(m: ModelMessage): SQSRecord {
    return {
      messageId: m.messageId,
      receiptHandle: m.receipt!,
      body: m.body,
      attributes: {
        ApproximateReceiveCount: String(m.receiveCount),
        SentTimestamp: String(m.sentAt),
        SenderId: 'AROAEXAMPLE',
        ApproximateFirstReceiveTimestamp: String(m.sentAt),
        ...(m.groupId ? { MessageGroupId: m.groupId } : {}),
      },
      messageAttributes: {},
      md5OfBody: md5(m.body),
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:onebot-queue',
      awsRegion: 'us-east-1',
    };
  }

  private changeVisibility(receipt: string, seconds: number): string | undefined {
    const message = [...this.queue.values()].find((m) => m.receipt === receipt);
    if (!message || message.visibleAt <= this.now) return 'ReceiptHandleIsInvalid';
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_VISIBILITY_SECONDS) return 'InvalidParameterValue';
    message.visibleAt = this.now + seconds * 1000;
    return undefined;
  }

  /** The queue's counts as GetQueueAttributes names them (exact here; SQS approximates them): visible, and received or hidden. */
  private attributes(names: ReadonlyArray<string>): Record<string, string> {
    const messages = [...this.queue.values()];
    const visible = messages.filter((m) => m.visibleAt <= this.now).length;
    const counts: Record<string, number> = { ApproximateNumberOfMessages: visible, ApproximateNumberOfMessagesNotVisible: messages.length - visible };
    return Object.fromEntries(names.filter((name) => name in counts).map((name) => [name, String(counts[name])]));
  }

  /** Serves the queue at `url` (http://127.0.0.1:<port>/000000000000/onebot-queue). */
  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
          res.end(JSON.stringify(body));
        };
        switch (req.headers['x-amz-target']) {
          case 'AmazonSQS.SendMessage':
            return answer(200, { MessageId: this.send(input.MessageBody), MD5OfMessageBody: md5(input.MessageBody) });
          case 'AmazonSQS.SendMessageBatch':
            return answer(200, {
              Successful: input.Entries.map((e: { Id: string; MessageBody: string; MessageGroupId?: string; MessageDeduplicationId?: string }) => ({
                Id: e.Id,
                MessageId: this.send(e.MessageBody, { groupId: e.MessageGroupId, deduplicationId: e.MessageDeduplicationId }),
                MD5OfMessageBody: md5(e.MessageBody),
              })),
              Failed: [],
            });
          case 'AmazonSQS.ChangeMessageVisibilityBatch': {
            const Successful: Array<{ Id: string }> = [];
            const Failed: Array<{ Id: string; Code: string; SenderFault: boolean }> = [];
            for (const entry of input.Entries) {
              const code = this.changeVisibility(entry.ReceiptHandle, entry.VisibilityTimeout);
              if (code) Failed.push({ Id: entry.Id, Code: code, SenderFault: true });
              else Successful.push({ Id: entry.Id });
            }
            return answer(200, { Successful, Failed });
          }
          case 'AmazonSQS.GetQueueAttributes':
            return answer(200, { Attributes: this.attributes(input.AttributeNames ?? []) });
          default:
            return answer(400, { __type: 'com.amazonaws.sqs#UnsupportedOperation', message: String(req.headers['x-amz-target']) });
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/000000000000/onebot-queue`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');
