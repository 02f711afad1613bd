import type { Operation } from '../http/middleware';
import { SYSTEM_FIELDS } from '../models/define';
import { MODELS } from '../models/registry';

export const modelsOperation: Operation = async () => ({
  data: {
    models: MODELS.filter((m) => m.access !== 'hidden').map((m) => ({
      name: m.name,
      description: m.description,
      access: m.access,
      schema: m.jsonSchema,
      system_fields: SYSTEM_FIELDS,
      indexed: m.indexed,
      sortable: ['id', ...m.indexed],
      shards: m.shards,
    })),
  },
});
