import { useApi } from '../support/api';

const api = useApi();

test('service-made ids of one batch (one millisecond) list in creation order', async () => {
  const data = Array.from({ length: 50 }, (_, i) => ({ user_id: 7, content: `n${i}` }));
  const created = await api.post('/api/db/reaction/create', { data });
  expect(created.status).toBe(201);
  const listed = await api.post('/api/db/reaction/list', { filters: { user_id: 7 }, limit: 100 });
  expect(listed.body.data.items.map((r: { content: string }) => r.content)).toEqual(data.map((d) => d.content));
});
