import { openTable } from '../../../scripts/transfer/table';

// --aws never guesses which table it writes: the store's fallbacks (recordgate, us-east-1) could be another one.
describe('--aws names the table and its region, or refuses to run', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  test.each([
    ['TABLE_NAME', { AWS_REGION: 'eu-west-1' }, "--aws needs TABLE_NAME: the stack's TableName output"],
    ['AWS_REGION', { TABLE_NAME: 'Recordgate-RecordsTable-1' }, "--aws needs AWS_REGION: the stack's region"],
  ])('without %s', async (_, env, message) => {
    delete process.env.TABLE_NAME;
    delete process.env.AWS_REGION;
    Object.assign(process.env, env);
    await expect(openTable({ aws: true }, { create: false })).rejects.toThrow(message);
  });

  test('with both, the endpoint a local run set is dropped, and AWS is asked', async () => {
    Object.assign(process.env, { TABLE_NAME: 'Recordgate-RecordsTable-1', AWS_REGION: 'eu-west-1', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' });
    const table = await openTable({ aws: true }, { create: false });
    expect(table.name).toBe('Recordgate-RecordsTable-1 in AWS');
    expect(process.env.DYNAMODB_ENDPOINT).toBeUndefined();
    table.close();
  });

  test('and --endpoint beside it is refused', async () => {
    await expect(openTable({ aws: true, endpoint: 'http://127.0.0.1:8000' }, { create: false })).rejects.toThrow('--aws and --endpoint name two places');
  });
});
