import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authenticate } from '../auth/authorize';
import { databaseHealth, tableHealth } from '../health/database';
import type { Operation } from '../contract';
import { TableUnreachable } from '../store/errors';
import { misconfiguration } from '../store/sdk-errors';

/**
 * Whether the caller may see the bots: their ids are account numbers, so only a caller the record
 * API would let read (a token with `read`, or loopback in local open mode) gets them. The route
 * stays public: a missing, unknown or under-scoped token, or a token table that cannot be read
 * now, only leaves the bots out, and never turns a monitor's check into an error.
 */
const seesBots = (event: APIGatewayProxyEventV2): Promise<boolean> =>
  authenticate(event).then(
    (caller) => caller.scopes.has('read'),
    () => false,
  );

/**
 * Healthy, or 503 whatever failed, but for a misconfiguration (500 `misconfigured`): a monitor
 * needs to know the database cannot serve, and whether waiting helps; the log says why. The
 * bots are shown to a `read` caller only (seesBots).
 */
export const healthOperation: Operation = async ({ event }) => {
  try {
    return { data: (await seesBots(event)) ? await databaseHealth() : await tableHealth() };
  } catch (error) {
    // A missing table or grant is for an operator to fix, not an outage to wait out (500 misconfigured).
    if (misconfiguration(error)) throw error;
    throw new TableUnreachable(error);
  }
};
