import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookBody } from '../../shared/feed/change';

/** What the stand-in does with one request: answer 2xx, answer 5xx, never answer, or answer 2xx after the sender gave up. */
export type Behaviour = 'ok' | 'fail' | 'hang' | 'late';

export interface Received {
  id: string;
  /** webhook-timestamp, epoch seconds. */
  timestamp: number;
  body: WebhookBody;
  behaviour: Behaviour;
}

/** Whether the endpoint answered the request 2xx: a late answer counts, whether or not the sender waited for it. */
export const answeredOk = (r: Received): boolean => r.behaviour === 'ok' || r.behaviour === 'late';

export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * A subscriber's endpoint for the feed's tests: it checks every request as a receiver would,
 * with the Standard Webhooks library (`standardwebhooks`, its published algorithm: the signature
 * over id.timestamp.body and the timestamp's tolerance, on Date.now, which the tests move), and
 * records what it got; `behave` decides its answer. A request that fails the check is recorded
 * in `refused` and answered 400.
 */
export class WebhookReceiver {
  readonly secret = newSecret();
  readonly received: Received[] = [];
  readonly refused: string[] = [];
  behave: (body: WebhookBody) => Behaviour = () => 'ok';
  url = '';
  private server?: Server;
  private readonly held = new Set<ServerResponse>();

  /** `lateMs`: how long a late answer takes, past the sender's timeout. */
  constructor(
    private readonly lateMs = 1_000,
    /** The secrets a request must carry a signature of, each (the current one by default). */
    private readonly verifiers: ReadonlyArray<string> = [],
  ) {}

  async listen(): Promise<void> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks).toString('utf8');
    const headers = req.headers as Record<string, string>;
    let body: WebhookBody;
    try {
      if (req.headers['content-type'] !== 'application/json') throw new Error(`content-type ${req.headers['content-type']}`);
      for (const secret of this.verifiers.length ? this.verifiers : [this.secret]) body = new Webhook(secret).verify(payload, headers) as WebhookBody;
    } catch (error) {
      this.refused.push((error as Error).message);
      res.writeHead(400).end();
      return;
    }
    const behaviour = this.behave(body!);
    this.received.push({ id: headers['webhook-id'], timestamp: Number(headers['webhook-timestamp']), body: body!, behaviour });
    switch (behaviour) {
      case 'ok':
        return void res.writeHead(204).end();
      case 'fail':
        return void res.writeHead(503).end();
      case 'hang':
        this.held.add(res);
        return;
      case 'late':
        this.held.add(res);
        setTimeout(() => {
          this.held.delete(res);
          if (!res.destroyed) res.writeHead(200).end();
        }, this.lateMs).unref();
    }
  }

  /** The change ids the endpoint acknowledged with a 2xx (a late answer counts: the sender may not have seen it). */
  acknowledged(): Set<string> {
    return new Set(this.received.filter(answeredOk).map((r) => r.id));
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
