import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { useApi } from '../support/api';

/**
 * docs/architecture.md, "Adding a model", followed to the letter: step 1 defines the model with
 * defineModel, step 2 adds it to MODELS in shared/models/registry.ts (done here by extending the
 * registry module the handlers import), and nothing else.
 */
const throwaway = defineModel({
  name: 'bookmark',
  description: 'A throwaway model added by following docs/architecture.md',
  schema: z.strictObject({ url: z.string(), stars: z.number().optional() }),
  indexed: ['url'],
});

jest.mock('../../shared/models/registry', () => {
  const actual = jest.requireActual('../../shared/models/registry');
  const MODELS = [...actual.MODELS, throwaway];
  return { ...actual, MODELS, findModel: (name: string) => MODELS.find((m) => m.name === name) };
});

const api = useApi();

test('a model added in two steps is served by create, list and delete, and listed by models', async () => {
  const models = await api.get('/api/db/models');
  expect(models.body.data.models.map((m: { name: string }) => m.name)).toContain('bookmark');
  const created = await api.post('/api/db/bookmark/create', { data: [{ url: 'https://a.example', stars: 3 }, { url: 'https://b.example' }] });
  expect(created.status).toBe(201);
  const listed = await api.post('/api/db/bookmark/list', { filters: { url: 'https://a.example' } });
  expect(listed.body.data.items).toEqual([expect.objectContaining({ url: 'https://a.example', stars: 3 })]);
  const invalid = await api.post('/api/db/bookmark/create', { data: { url: 7 } });
  expect(invalid.status).toBe(422);
  const deleted = await api.post('/api/db/bookmark/delete', { filters: {}, allow_all: true });
  expect(deleted.body.data).toMatchObject({ deleted: 2, complete: true });
  expect((await api.post('/api/db/bookmark/count', {})).body.data.count).toBe(0);
});
