import { prepareTable } from '../../scripts/local/engine';

// Only the suites of the change feed, of streams and of aggregates (kept from the feed) read a stream: the others' tables have none,
// as writing each stream record slows a long run's DynamoDB Local (1.4x a put, measured).
const READS_STREAMS = /[\\/](feed[-.]|aggregate-|engine-streams|write-stamps)[^\\/]*$/;

beforeAll(async () => {
  await prepareTable(process.env.DYNAMODB_ENDPOINT!, process.env.TABLE_NAME!, { stream: READS_STREAMS.test(expect.getState().testPath ?? '') });
});
