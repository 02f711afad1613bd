import { useApi } from '../support/api';

const api = useApi();

test('health answers ok', async () => {
  const r = await api.get('/api/db/health');
  expect(r.status).toBe(200);
  expect(r.body.data.database).toBe('ok');
});
