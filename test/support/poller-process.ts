/**
 * The local feed poller in a process of its own, for the test that kills it with SIGKILL: its
 * consumer appends each record's item and sequence number to RG_HANDED (one line each, flushed)
 * and takes RG_CONSUME_MS to answer, so a kill lands while a batch is in hand.
 */
import { appendFileSync } from 'node:fs';
import { startFeedPoller } from '../../scripts/local/feed-poller';

const { RG_ENDPOINT, RG_TABLE, RG_DATA_DIR, RG_HANDED, RG_CONSUME_MS } = process.env;
startFeedPoller({
  endpoint: RG_ENDPOINT!,
  tableName: RG_TABLE!,
  dataDir: RG_DATA_DIR!,
  intervalMs: 20,
  batchSize: 10,
  consume: async (records) => {
    appendFileSync(RG_HANDED!, records.map((r) => `${r.dynamodb!.Keys!.sk.S} ${r.dynamodb!.SequenceNumber}\n`).join(''));
    await new Promise((resolve) => setTimeout(resolve, Number(RG_CONSUME_MS)));
    return { batchItemFailures: [] };
  },
});
console.log('polling');
