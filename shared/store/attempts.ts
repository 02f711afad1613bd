import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { REACHED, reachedDatabase } from './sdk-errors';

/**
 * What the SDK's attempts at one call did, told on the error it throws. The SDK retries a call
 * and throws only its last attempt's error: a refused last attempt says nothing of the earlier
 * one that timed out after it was sent, and "refused" would be read as "never written" while
 * that earlier attempt may still land (issue 30). So each attempt's failure is looked at where
 * it happens, inside the retry loop, and the call's error carries whether any attempt may have
 * reached DynamoDB.
 */

/** Set on a call whose caller settles a write that may have landed itself (shared/store/write/late-write.ts). */
const SETTLES = 'recordgate.settlesLateWrites';

type Context = Record<string | symbol, unknown>;

/**
 * A write whose attempt may have reached DynamoDB, stopped before the SDK sends it again: its
 * caller reads the item and sends a copy only when that tells it to (write/late-write.ts), where the
 * SDK's blind copies would spend the invocation's time waiting on a database that applies writes
 * late. A plain Error without a name, status or cause, so the SDK's retry strategy takes it for
 * a client error and gives up at once; the attempt's own error is `attempt`.
 */
export class WriteInDoubt extends Error {
  constructor(readonly attempt: unknown) {
    super('A write attempt may have reached the database');
  }
}

/** The attempt's own error of a write stopped in doubt; any other error as it is. */
export const attemptError = (error: unknown): unknown => (error instanceof WriteInDoubt ? error.attempt : error);

/** Installs the two middlewares on the client: one around each attempt, one around the whole call. */
export function trackAttempts(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        (error as Record<symbol, boolean>)[REACHED] = (context as Context)[REACHED] === true;
        throw error;
      }
    },
    { step: 'initialize', priority: 'high', name: 'recordgateCallReach' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (!reachedDatabase(error)) throw error;
        (context as Context)[REACHED] = true;
        throw (context as Context)[SETTLES] === true ? new WriteInDoubt(error) : error;
      }
    },
    // Inside the retry middleware (finalizeRequest, high): once per attempt.
    { step: 'finalizeRequest', priority: 'low', name: 'recordgateAttemptReach' },
  );
}

/** Marks one write call as settled by its caller: an attempt that may have reached DynamoDB is not sent again by the SDK. */
export function settledByCaller<C extends { middlewareStack: { add: (...args: never[]) => unknown } }>(command: C): C {
  const add = command.middlewareStack.add as (middleware: unknown, options: unknown) => void;
  add(
    (next: (args: unknown) => Promise<unknown>, context: Context) => (args: unknown) => {
      context[SETTLES] = true;
      return next(args);
    },
    // Named with override: lib-dynamodb concatenates a command's stack into the client's twice.
    { step: 'initialize', priority: 'low', name: 'recordgateSettlesItself', override: true },
  );
  return command;
}
