import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { httpFramer, type HttpMessage } from './http-frames';

/** A write the service sent the engine, as a rule sees it: the operation and the items' keys it names. */
export interface WriteCall {
  /** The operation of `x-amz-target`, e.g. `PutItem`. */
  operation: string;
  /** pk and sk of every item the write names (Item, Key, each transaction or batch entry). */
  keys: Array<{ pk: string; sk: string }>;
}

/** Chooses writes; it is asked once per write, in the order the writes reach the proxy. */
export type WriteRule = (write: WriteCall) => boolean;

/**
 * How the proxy treats the link to the engine:
 * - `pass`: bytes flow both ways;
 * - `refuse`: connections are reset and new ones refused, as when the database host goes away;
 * - `hang`: connections are accepted and nothing is forwarded, so no request is ever answered;
 * - `drop`: requests reach the engine (and are applied), their answers are swallowed;
 * - `slowWritesMs`: reads pass at once, every write is held that long (in arrival order) and
 *   then delivered, also when its caller gave up and closed its connection meanwhile: a write
 *   that lands after the service answered;
 * - `loseAnswers`: the writes the rule picks reach the engine and are applied, their answers are
 *   swallowed; with `thenRefuse`, the link is refused as soon as the first such write was
 *   applied, so the SDK's retries fail too;
 * - `refuseAt`: the first write the rule picks is not delivered, and the link is refused from then on.
 * A connection that lost bytes to `hang`, `drop` or `loseAnswers` stays silent after the link
 * heals, as a connection through a broken middlebox does: only a new one works again. Writes
 * still held when the link is refused are delivered all the same: they are already on their way.
 * test/support/write-rules.ts makes the rules.
 */
export type LinkMode =
  | 'pass'
  | 'refuse'
  | 'hang'
  | 'drop'
  | { slowWritesMs: number }
  | { loseAnswers: WriteRule; thenRefuse?: boolean }
  | { refuseAt: WriteRule };

export interface SteerableProxy {
  endpoint: string;
  /** The engine behind the proxy, for a test that reads the table past the faults. */
  target: string;
  set(mode: LinkMode): Promise<void>;
  /** Resolves once every held write was delivered and the engine answered it, and every write whose answer is lost was answered to the proxy. */
  drained(): Promise<void>;
  /** What the faults did so far: writes held and delivered late, and answers of applied writes lost. */
  counts(): { held: number; lost: number };
  close(): Promise<void>;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem']);

type Attributes = Record<string, { S?: string } | undefined> | undefined;
const keyOf = (item: Attributes) => ({ pk: item?.pk?.S ?? '', sk: item?.sk?.S ?? '' });

/** The keys a DynamoDB JSON write names. */
function keysOf(operation: string, input: any): WriteCall['keys'] {
  switch (operation) {
    case 'PutItem':
      return [keyOf(input.Item)];
    case 'UpdateItem':
    case 'DeleteItem':
      return [keyOf(input.Key)];
    case 'TransactWriteItems':
      return (input.TransactItems ?? []).map((entry: any) => {
        const action = entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck;
        return keyOf(action.Item ?? action.Key);
      });
    case 'BatchWriteItem':
      return Object.values(input.RequestItems ?? {}).flatMap((requests: any) =>
        requests.map((request: any) => keyOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key)),
      );
    default:
      return [];
  }
}

/** The write a request carries, or undefined for a read. */
function writeOf(request: HttpMessage): WriteCall | undefined {
  const operation = (request.headers.get('x-amz-target') ?? '').split('.').pop() ?? '';
  if (!WRITES.has(operation)) return undefined;
  let input: unknown;
  try {
    input = JSON.parse(request.body.toString('utf8'));
  } catch {
    input = {};
  }
  return { operation, keys: keysOf(operation, input) };
}

/** A TCP proxy in front of the test's database engine that a test steers; the engine itself stays the real one. */
export async function startSteerableProxy(target: string): Promise<SteerableProxy> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  /**
   * Both ends of connections that carry a held write: a refused link leaves them, so the write
   * is delivered and its caller waits for it until its own timeout, as for a request lost in transit.
   */
  const carrying = new Set<Socket>();
  const inFlight = new Set<Promise<void>>();
  const counts = { held: 0, lost: 0 };
  /** When the last held write is due: later ones wait for it, so that writes land in arrival order. */
  let lastDue = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  let mode: LinkMode = 'pass';
  let server: Server | undefined;

  /**
   * Sends a held write over a connection of its own, opened when it is due, and resolves with the
   * engine's answer: the client's connection may be long gone, and the engine closes idle ones.
   */
  const deliver = (request: HttpMessage) =>
    new Promise<HttpMessage | undefined>((resolve) => {
      const courier = connect(Number(targetPort), hostname);
      track(courier);
      carrying.add(courier);
      courier.on(
        'data',
        httpFramer((answer) => {
          resolve(answer);
          courier.destroy();
        }),
      );
      courier.on('close', () => {
        carrying.delete(courier);
        resolve(undefined);
      });
      courier.write(request.raw);
    });

  const link = (client: Socket) => {
    track(client);
    let silent = false;
    /** Held writes of this connection not yet answered: until they are, the client's connection is kept. */
    let heldHere = 0;
    const passOn = (answer: HttpMessage, swallow: boolean) => {
      if (swallow || mode === 'hang' || mode === 'drop') silent = true;
      if (!silent && !client.destroyed) client.write(answer.raw);
    };
    const open = () => {
      const socket = connect(Number(targetPort), hostname);
      track(socket);
      /** One entry per request sent on it, in order: whether its answer is swallowed, and who waits for it. */
      const awaiting: Array<{ swallow: boolean; answered: () => void }> = [];
      socket.on(
        'data',
        httpFramer((answer) => {
          const next = awaiting.shift();
          next?.answered();
          passOn(answer, next?.swallow ?? false);
        }),
      );
      socket.on('close', () => {
        for (const { answered } of awaiting.splice(0)) answered();
        if (socket !== upstream) return;
        upstream = undefined;
        if (heldHere === 0) client.destroy();
      });
      const send = (request: HttpMessage, swallow: boolean) =>
        new Promise<void>((answered) => {
          awaiting.push({ swallow, answered });
          socket.write(request.raw);
        });
      return Object.assign(socket, { send });
    };
    let upstream: ReturnType<typeof open> | undefined = open();
    /** Requests of this connection go on in order, each after the one before (a held write holds the next). */
    let previous = Promise.resolve();
    const sendOn = (request: HttpMessage, swallow: boolean) => {
      upstream ??= open();
      return upstream.send(request, swallow);
    };

    const hold = (request: HttpMessage, delayMs: number) => {
      counts.held += 1;
      heldHere += 1;
      carrying.add(client);
      lastDue = Math.max(Date.now() + delayMs, lastDue);
      const due = lastDue;
      const delivered: Promise<void> = previous
        .then(() => new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()))))
        .then(() => deliver(request))
        .then((answer) => answer && passOn(answer, false))
        .finally(() => {
          inFlight.delete(delivered);
          heldHere -= 1;
          if (heldHere > 0) return;
          carrying.delete(client);
          if (!upstream) client.destroy();
        });
      inFlight.add(delivered);
      previous = delivered;
    };

    const onRequest = (request: HttpMessage) => {
      if (silent) return;
      if (mode === 'hang') {
        silent = true;
        return;
      }
      const write = writeOf(request);
      const current = mode;
      if (write && typeof current === 'object') {
        if ('refuseAt' in current && current.refuseAt(write)) return void refuse();
        if ('slowWritesMs' in current) return hold(request, current.slowWritesMs);
        if ('loseAnswers' in current && current.loseAnswers(write)) {
          silent = true;
          counts.lost += 1;
          const applied: Promise<void> = previous.then(() => sendOn(request, true)).finally(() => inFlight.delete(applied));
          inFlight.add(applied);
          previous = applied;
          if (current.thenRefuse) void applied.then(refuse);
          return;
        }
      }
      previous = previous.then(() => {
        void sendOn(request, false);
      });
    };
    client.on('data', httpFramer(onRequest));
    client.on('close', () => upstream?.destroy());
  };

  const listen = (port: number) =>
    new Promise<void>((resolve) => {
      server = createServer(link);
      server.listen(port, '127.0.0.1', resolve);
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server?.listening) return resolve();
      server.close(() => resolve());
      for (const socket of sockets) if (!carrying.has(socket)) socket.destroy();
    });
  const refuse = async () => {
    mode = 'refuse';
    await stop();
  };
  await listen(0);
  const port = (server!.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    target,
    async set(next) {
      if (next === 'refuse') await stop();
      else if (!server?.listening) await listen(port);
      mode = next;
    },
    async drained() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    counts: () => ({ ...counts }),
    close: async () => {
      await stop();
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * For a test file: the service reaches the engine through a proxy the file steers, started
 * before its first request (the table was made on the engine itself) and closed after it.
 */
export function useSteerableProxy(): Omit<SteerableProxy, 'endpoint' | 'close'> {
  let proxy: SteerableProxy | undefined;
  let target = '';
  beforeAll(async () => {
    target = process.env.DYNAMODB_ENDPOINT!;
    proxy = await startSteerableProxy(target);
    process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  });
  afterAll(() => proxy?.close());
  return {
    get target() {
      return target;
    },
    set: (mode) => proxy!.set(mode),
    drained: () => proxy!.drained(),
    counts: () => proxy!.counts(),
  };
}
