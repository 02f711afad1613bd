import * as z from 'zod';
import { defineModel } from '../../shared/models/define';
import { useApi } from '../support/api';

/**
 * docs/architecture.md, "Adding a model", followed to the letter: step 1 defines the model with
 * defineModel, step 2 adds its loader to LOADERS in shared/models/catalog.ts (done here by
 * extending the catalog module everything else reads models from), and nothing else.
 */
const throwaway = defineModel({
  name: 'bookmark',
  description: 'A throwaway model added by following docs/architecture.md',
  schema: z.strictObject({ url: z.string(), stars: z.number().optional() }),
  indexed: ['url'],
});

jest.mock('../../shared/models/catalog', () => {
  const actual = jest.requireActual('../../shared/models/catalog');
  return {
    MODEL_NAMES: [...actual.MODEL_NAMES, throwaway.name],
    findModel: (name: string) => (name === throwaway.name ? throwaway : actual.findModel(name)),
  };
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
