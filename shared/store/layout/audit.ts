import type { Model } from '../../models/model';
import type { ErrorDetail } from '../../models/details';
import { checkAgainst } from '../../models/validate';
import { shardPage } from '../read/query';
import { DATA_ATTRIBUTE } from '../table';

export interface ModelAudit {
  model: string;
  records: number;
  /** Records the current schema refuses, up to `keep` of them with their problems. */
  refused: number;
  examples: Array<{ id: string; details: ErrorDetail[] }>;
  /**
   * Of a model with an owner rule, records whose owner field holds no subject (stored before the
   * rule, or by the service): no caller without admin reaches them, until admin sets their owner.
   */
  unowned: number;
}

/**
 * Reads every stored record of the model (each shard, page by page) and checks its data
 * against the current schema, and counts those of an owner model without an owner, changing nothing: what `npm run models:check` reports. A record
 * it refuses still reads as stored; an update of it must make it valid (422 otherwise).
 */
export async function auditModel(model: Model, keep = 10): Promise<ModelAudit> {
  const audit: ModelAudit = { model: model.name, records: 0, refused: 0, examples: [], unowned: 0 };
  for (let shard = 0; shard < model.shards; shard++) {
    let after: string | undefined;
    do {
      const page = await shardPage(model, shard, { after, consistent: false });
      for (const item of page.items) {
        audit.records += 1;
        const data = item[DATA_ATTRIBUTE] as Record<string, unknown>;
        if (model.owner && typeof data[model.owner] !== 'string') audit.unowned += 1;
        const { details } = await checkAgainst(model.schema, item[DATA_ATTRIBUTE], []);
        if (details.length === 0) continue;
        audit.refused += 1;
        if (audit.examples.length < keep) audit.examples.push({ id: item.id as string, details });
      }
      after = page.last;
    } while (after !== undefined);
  }
  return audit;
}
