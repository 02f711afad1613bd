import { countRecords, listRecords } from '../../shared/store/records';
import type { BenchContext } from './context';
import { benchData, benchTenantModel, range, seed } from './seed';

export interface TenantCost {
  operation: string;
  tenants: number;
  /** Records in the model, every tenant's. */
  stored: number;
  /** Whether the model has the tenant rule (the tenant in its keys), or only an org field a filter picks. */
  keyed: boolean;
  capacity: number;
  billed: number;
  commands: Record<string, number>;
}

const tenantOf = (k: number) => `t${String(k).padStart(3, '0')}`;

/**
 * What one tenant's reads cost with the tenant alone in the model and beside 99 others holding
 * as many records each (issue 33): the whole of tenant t000's records listed page by page, and
 * counted. The tenant is part of every key (shared/store/keys.ts), so its Query reads its own
 * key range and the others' records are never read: the two costs must be equal. Each answer is
 * checked to be exactly the tenant's records, so a store that read the others and filtered them
 * out would show here as a higher cost, and one that showed them as a failure. The same reads
 * as a filter on a plain field show what keeping tenants apart by filter alone would cost.
 */
export async function tenantCosts(ctx: BenchContext, perTenant: number): Promise<TenantCost[]> {
  const rows: TenantCost[] = [];
  const tenant = tenantOf(0);
  const cases = [
    { tenants: 1, keyed: true, how: '' },
    { tenants: 100, keyed: true, how: '' },
    { tenants: 100, keyed: false, how: ', as a filter on org (no tenant rule: for comparison)' },
  ];
  for (const { tenants, keyed, how } of cases) {
    const model = benchTenantModel(`cap_tenants${tenants}${keyed ? '' : '_filtered'}`, keyed);
    const stored = tenants * perTenant;
    // Ids interleave the tenants, so no tenant's records lie together by id alone.
    await seed(model, range(0, stored), (i) => ({ ...benchData(i), org: tenantOf(i % tenants) }));
    const options = keyed ? { reach: { tenant } } : {};
    const filters = keyed ? {} : { org: tenant };
    // The first request of a container reads the model's layout: measured apart, as capacity.ts does.
    await listRecords(model, { filters, limit: 1 }, options);
    const list = await ctx.meter.measure(async () => {
      let cursor: string | undefined;
      let seen = 0;
      do {
        const page = await listRecords(model, { filters, limit: 100, cursor }, options);
        if (page.items.some((item) => item.org !== tenant)) throw new Error(`tenant bench: a list of ${tenant} showed another tenant's record`);
        seen += page.items.length;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      if (seen !== perTenant) throw new Error(`tenant bench: a list of ${tenant} showed ${seen} records, it holds ${perTenant}`);
    });
    const count = await ctx.meter.measure(async () => {
      const { count: counted } = await countRecords(model, { filters }, options);
      if (counted !== perTenant) throw new Error(`tenant bench: ${tenant} counted ${counted} records, it holds ${perTenant}`);
    });
    rows.push({ operation: `list a tenant's ${perTenant} records (every page)${how}`, tenants, keyed, stored, ...list });
    rows.push({ operation: `count a tenant's ${perTenant} records${how}`, tenants, keyed, stored, ...count });
  }
  ctx.log(`capacity: a tenant's reads, ${rows.map((r) => `${r.operation} beside ${r.tenants - 1} others: ${r.billed} units`).join('; ')}`);
  return rows;
}
