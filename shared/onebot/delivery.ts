/**
 * A verified delivery, as every room after verification reads it: stored now, or kept while the
 * database is down and stored later (keep/).
 */
export interface Delivery {
  /** Given at receipt and kept with it to storage, so a delivery replayed after a lost answer is found again. */
  id: string;
  rawBody: Buffer;
  /** The headers the receiver reads after verification (lower-case names): x-self-id, user-agent, content-type. */
  headers: Record<string, string | undefined>;
  /** When its request arrived (API Gateway's requestContext.timeEpoch), not when its handler ran. */
  receivedAt: string;
  /** Whether its signature was checked (a secret was set). */
  signed: boolean;
  /**
   * Its answer was begun (stored or kept) go-cqhttp's timeout or more after it arrived: that
   * sender had given up on it and re-sends it (store/dedupe.ts).
   */
  late: boolean;
}
