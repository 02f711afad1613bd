import { prepareTable } from '../../scripts/local/engine';

beforeAll(async () => {
  await prepareTable(process.env.DYNAMODB_ENDPOINT!, process.env.TABLE_NAME!);
});
