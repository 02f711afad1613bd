import { useApi } from '../support/api';
import { storedItems } from '../support/stored';

// Many writers on one record at once, as clients under load send them. Whatever each is
// answered, an error answer must mean that its write did not happen.
const api = useApi();
const reaction = { name: 'reaction', shards: 1 };

test('50 concurrent updates of one record: each 200 is one write, each 409 record_busy none', async () => {
  await api.post('/api/db/reaction/create', { id: 'hot', data: { user_id: 0, content: 'hot' } });
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) => api.post('/api/db/reaction/update', { filters: { id: 'hot' }, values: { user_id: i + 1 } })),
  );
  const applied = answers.filter((a) => a.status === 200);
  for (const a of applied) expect(a.body.data).toMatchObject({ updated: 1, matched: 1 });
  for (const a of answers.filter((r) => r.status !== 200)) {
    expect(a.status).toBe(409);
    expect(a.body.data).toMatchObject({ error: 'record_busy', id: 'hot', updated: 0 });
  }
  const [stored] = (await storedItems(reaction)).filter((i) => i.id === 'hot');
  expect(stored._version).toBe(1 + applied.length);
  // The value stored is one that a 200 answered for.
  const answered = applied.map((a) => JSON.parse(a.text)).length;
  expect(answered).toBe(applied.length);
}, 120_000);
