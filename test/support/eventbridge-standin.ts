import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An event as the bus took it. */
export interface PutEvent {
  bus: string;
  source: string;
  detailType: string;
  detail: unknown;
  time: number;
}

/**
 * EventBridge's PutEvents over HTTP (AWS JSON 1.1, `X-Amz-Target: AWSEvents.PutEvents`), so the
 * service's own EventBridge client reaches it through AWS_ENDPOINT_URL_EVENTBRIDGE. It holds to
 * what the API reference says: a call of more than 10 entries, or over 256 KB as
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html counts it, is
 * refused whole (ValidationException); otherwise each entry is taken or refused on its own, the
 * answer's Entries in the request's order and FailedEntryCount counting the refused. `refuse`
 * decides per entry (an ErrorCode refuses it); `refuseCall` refuses a whole call as IAM does.
 */
export class EventBridgeStandIn {
  readonly events: PutEvent[] = [];
  /** Entries refused, one by one or with their whole call. */
  readonly refused: PutEvent[] = [];
  calls = 0;
  /** Calls refused for breaking a limit: the publisher must never make one. */
  readonly overLimit: string[] = [];
  refuse: (entry: PutEvent) => string | undefined = () => undefined;
  refuseCall: (entries: PutEvent[]) => boolean = () => false;
  url = '';
  private server?: Server;

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answer = (status: number, body: unknown) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
          res.end(JSON.stringify(body));
        };
        if (req.headers['x-amz-target'] !== 'AWSEvents.PutEvents')
          return answer(400, { __type: 'UnknownOperationException', message: String(req.headers['x-amz-target']) });
        this.calls++;
        const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries: Array<Record<string, unknown>> };
        const entries: PutEvent[] = input.Entries.map((e) => ({
          bus: String(e.EventBusName ?? 'default'),
          source: String(e.Source),
          detailType: String(e.DetailType),
          detail: JSON.parse(String(e.Detail)),
          time: Number(e.Time),
        }));
        const bytes = input.Entries.reduce(
          (sum, e) => sum + 14 + Buffer.byteLength(String(e.Source)) + Buffer.byteLength(String(e.DetailType)) + Buffer.byteLength(String(e.Detail)),
          0,
        );
        const limit = entries.length > 10 ? `${entries.length} entries` : bytes > 256 * 1024 ? `${bytes} bytes` : undefined;
        if (limit) {
          this.overLimit.push(limit);
          return answer(400, { __type: 'ValidationException', message: `request over the limit: ${limit}` });
        }
        if (this.refuseCall(entries)) {
          this.refused.push(...entries);
          return answer(400, { __type: 'AccessDeniedException', message: 'not authorized to perform: events:PutEvents' });
        }
        const results = entries.map((event) => {
          const code = this.refuse(event);
          if (code) this.refused.push(event);
          if (code) return { ErrorCode: code, ErrorMessage: `refused: ${code}` };
          this.events.push(event);
          return { EventId: randomUUID() };
        });
        return answer(200, { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
