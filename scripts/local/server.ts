import type { Server } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { FUNCTION_DESCRIPTORS, type HttpFunctionName } from '../../shared/manifest/functions';
import { drainSpoolWith } from '../../shared/onebot/keep/spool';
import { dispatch } from './route-selection';
import { lambdaContext } from './event';
import { startGateway, type Invocation } from './gateway';
import { scheduleDrain } from './spool-drain';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const loaded = new Map<string, Promise<Handler>>();

/** Loads a function's handler on its first request, as Lambda does on a cold start. */
function handlerOf(name: string): Promise<Handler> {
  let handler = loaded.get(name);
  if (!handler) {
    handler = import(`../../functions/${name}/handler`).then((module) => module.handler as Handler);
    loaded.set(name, handler);
  }
  return handler;
}

/**
 * Whether a function answers 503 database_unavailable while npm start has not reached its
 * database yet: every one that uses the table but the OneBot receiver, which keeps what it
 * receives in the spool (shared/onebot/keep/) and acknowledges it, since no sender re-sends.
 */
const waitsForDatabase = (name: HttpFunctionName): boolean => FUNCTION_DESCRIPTORS[name].table.length > 0 && name !== 'onebot';

const standIns = new Map<string, Promise<Handler>>();

/**
 * A function's own middleware chain (auth, envelope, headers, request log) around an operation
 * that answers what an unreachable table answers: 503 database_unavailable with Retry-After.
 */
function unavailableHandlerOf(name: HttpFunctionName): Promise<Handler> {
  let handler = standIns.get(name);
  if (!handler) {
    handler = Promise.all([import('../../shared/http/middleware'), import('../../shared/store/errors')]).then(
      ([{ httpHandler }, { TableUnreachable }]) =>
        httpHandler(name, async () => {
          throw new TableUnreachable(new Error('npm start has not reached its database yet'));
        }) as Handler,
    );
    standIns.set(name, handler);
  }
  return handler;
}

/** A function's timeout in seconds, asked at each invocation. */
type TimeoutOf = (name: HttpFunctionName) => number;
/** The deployed setting. Tests on a loaded machine give more (test/support/api.ts), never less. */
const configuredTimeout: TimeoutOf = (name) => FUNCTION_DESCRIPTORS[name].lambda.timeoutSeconds;

/**
 * Runs a function's handler in this process under its configured timeout. Past the timeout
 * Lambda stops the function and API Gateway answers 500; here the answer is the same, though
 * the handler's remaining work cannot be stopped in-process (long work stops itself first).
 *
 * The timeout runs from the request's arrival, not from the handler's start. In AWS each
 * invocation gets an execution environment of its own as soon as API Gateway has the request
 * (or is throttled), so Lambda's timeout, which runs from the invocation, is the bound on the
 * answer. Here every function shares one process, and under load a request waits in it before
 * its handler runs: that wait counts against the timeout, so the answer still comes within it
 * and the handler sees in its context the time really left. A request whose time is up before
 * its handler starts never reaches it: the gateway answers 503 and nothing happens.
 */
async function invokeInProcess(name: HttpFunctionName, event: APIGatewayProxyEventV2, timeoutOf: TimeoutOf, databaseReady: () => boolean): Promise<Invocation> {
  const timeoutSeconds = timeoutOf(name);
  const deadline = event.requestContext.timeEpoch + timeoutSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const handler = await (databaseReady() || !waitsForDatabase(name) ? handlerOf(name) : unavailableHandlerOf(name));
    if (Date.now() >= deadline) return { kind: 'not-started' };
    const context = lambdaContext(name, event.requestContext.requestId, deadline);
    const timedOut = new Promise<Invocation>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'failed', reason: `Task timed out after ${timeoutSeconds} seconds` }), deadline - Date.now());
    });
    const answered = handler(event, context).then((result): Invocation => ({ kind: 'answer', result }));
    return await Promise.race([answered, timedOut]);
  } catch (error) {
    return { kind: 'failed', reason: (error as Error)?.message ?? String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The whole API on localhost, routed as the deployed HTTP API routes: the route keys of the one
 * route table (shared/manifest/routes.ts), `$default` for everything else, each served by the same
 * handler that is deployed for it (or, while the database has not been reached, unavailableHandlerOf).
 */
export function startLocalServer(options: {
  port: number;
  host: string;
  timeoutSeconds?: TimeoutOf;
  /** False while npm start has not reached its database: the functions that need it answer 503 meanwhile. */
  databaseReady?: () => boolean;
}): Promise<{ server: Server; url: string }> {
  const { timeoutSeconds: timeoutOf = configuredTimeout, databaseReady = () => true, ...listen } = options;
  // A delivery the receiver spools while the database is unreachable is stored by this server's drain.
  drainSpoolWith(scheduleDrain);
  return startGateway({
    ...listen,
    route: (method, rawPath) => {
      const { key, fn, params } = dispatch(method, rawPath);
      return { key, target: fn, params };
    },
    invoke: (name, event) => invokeInProcess(name, event, timeoutOf, databaseReady),
  });
}
