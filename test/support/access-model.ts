import type { Item } from './filter-reference';
import { RecordModel, type FieldSpec, type ModelSpec } from './record-model';

/**
 * Issue 33's rules over the record reference (test/support/record-model.ts), as docs/security.md
 * states them: a caller reaches the records of its tenant, and of those, without admin, the ones
 * it owns; to it the rest do not exist. So each caller works on a view, a RecordModel of only the
 * records it reaches with its hidden fields taken out, and the reference's own answers for that
 * view are what the service must answer it. What the view's operation changes is then written
 * back into the whole table, which the test compares with what is stored.
 */
export interface CallerSpec {
  name: string;
  scopes: ReadonlyArray<'read' | 'write' | 'admin'>;
  sub?: string;
  claims: Readonly<Record<string, string>>;
  /** How its credential travels: an API_TOKENS entry, or a JWT API Gateway verified. */
  via: 'token' | 'jwt';
}

export interface RuledSpec extends ModelSpec {
  owner?: string;
  tenant?: { field: string; claim: string };
  /** Fields hidden from a caller without the scope or claim. */
  hidden?: Record<string, { scope: string } | { claim: string }>;
  /** Fields only the service sets, each with the default a create gives it. */
  readOnly?: Record<string, unknown>;
}

/** What a caller reaches of a model: undefined for all of it, `refused` when its credential lacks what a rule needs (403). */
export type Reach = { tenant?: string; owner?: string } | 'refused';

export function reachOf(model: RuledSpec, caller: CallerSpec): Reach | undefined {
  if (!model.owner && !model.tenant) return undefined;
  const admin = caller.scopes.includes('admin');
  if (model.tenant && !caller.claims[model.tenant.claim]) return 'refused';
  if (model.owner && !admin && !caller.sub) return 'refused';
  return { tenant: model.tenant ? caller.claims[model.tenant.claim] : undefined, owner: model.owner && !admin ? caller.sub : undefined };
}

export function hiddenOf(model: RuledSpec, caller: CallerSpec): string[] {
  return Object.entries(model.hidden ?? {})
    .filter(([, to]) => ('scope' in to ? !caller.scopes.includes(to.scope as 'admin') : !caller.claims[to.claim]))
    .map(([field]) => field);
}

/** Whether two callers reach the same records of a model: only then may one continue the other's cursor. */
export const sameReach = (model: RuledSpec, a: CallerSpec, b: CallerSpec): boolean => {
  const [x, y] = [reachOf(model, a), reachOf(model, b)];
  if (x === 'refused' || y === 'refused') return false;
  return x?.tenant === y?.tenant && x?.owner === y?.owner;
};

const without = (data: Record<string, unknown>, fields: ReadonlyArray<string>) => Object.fromEntries(Object.entries(data).filter(([k]) => !fields.includes(k)));

/** A record's place in the table: ids are per tenant. */
export const keyOf = (model: RuledSpec, item: Item): string =>
  `${model.tenant ? String((item.d as Record<string, unknown>)[model.tenant.field]) : ''}\0${String(item.id)}`;

/** One caller's view of one model: the records it reaches, as it sees them, and the way back into the table. */
export class View {
  readonly model: RecordModel;
  readonly hidden: string[];

  constructor(
    readonly table: AccessTable,
    readonly spec: RuledSpec,
    readonly caller: CallerSpec,
    readonly reach: Exclude<Reach, 'refused'> | undefined,
  ) {
    this.hidden = hiddenOf(spec, caller);
    const fields: Record<string, FieldSpec> = without(spec.fields, this.hidden) as Record<string, FieldSpec>;
    this.model = new RecordModel({ name: spec.name, shards: spec.shards, fields, indexed: spec.indexed.filter((f) => !this.hidden.includes(f)) });
    for (const item of this.table.items(spec)) {
      if (!this.reaches(item)) continue;
      this.model.records.set(item.id as string, { ...item, d: without(item.d as Record<string, unknown>, this.hidden) });
    }
  }

  /**
   * The view as what a caller sends is checked against: the rule fields are the service's to
   * fill (the owner from the subject, the tenant from the claim), so the caller may leave them out.
   */
  sendable(): RecordModel {
    const ruled = [this.spec.owner, this.spec.tenant?.field];
    const fields = Object.fromEntries(Object.entries(this.model.spec.fields).map(([k, f]) => [k, ruled.includes(k) ? { ...f, required: false } : f]));
    const model = new RecordModel({ ...this.model.spec, fields });
    for (const [id, item] of this.model.records) model.records.set(id, item);
    return model;
  }

  reaches(item: Item): boolean {
    const d = item.d as Record<string, unknown>;
    if (this.reach?.tenant !== undefined && d[this.spec.tenant!.field] !== this.reach.tenant) return false;
    return this.reach?.owner === undefined || d[this.spec.owner!] === this.reach.owner;
  }

  /** Whether the table holds this id where the caller's key range lies, in a record it does not reach (another owner's). */
  takenOutside(id: string): boolean {
    return !this.model.records.has(id) && this.table.items(this.spec).some((item) => item.id === id && this.sameTenant(item));
  }

  private sameTenant(item: Item): boolean {
    return this.reach?.tenant === undefined || (item.d as Record<string, unknown>)[this.spec.tenant!.field] === this.reach.tenant;
  }

  /** The whole record of a viewed one: its hidden fields as stored. */
  private full(id: string): Item {
    return this.table.items(this.spec).find((item) => item.id === id && this.sameTenant(item) && this.reaches(item))!;
  }

  /** Writes the view's records `ids` back (changed), or removes them (deleted). */
  writeBack(ids: ReadonlyArray<string>): void {
    for (const id of ids) {
      const seen = this.model.records.get(id);
      const before = this.full(id);
      if (before) this.table.remove(this.spec, before);
      if (!seen) continue;
      const kept = before
        ? Object.fromEntries(this.hidden.filter((f) => Object.hasOwn(before.d as object, f)).map((f) => [f, (before.d as Record<string, unknown>)[f]]))
        : {};
      this.table.put(this.spec, { ...seen, d: { ...(seen.d as Record<string, unknown>), ...kept } });
    }
  }
}

/** Every record of every model, keyed by tenant and id, as the table should hold them. */
export class AccessTable {
  private readonly byModel = new Map<string, Map<string, Item>>();

  items(model: RuledSpec): Item[] {
    return [...(this.byModel.get(model.name)?.values() ?? [])];
  }

  put(model: RuledSpec, item: Item): void {
    if (!this.byModel.has(model.name)) this.byModel.set(model.name, new Map());
    this.byModel.get(model.name)!.set(keyOf(model, item), item);
  }

  remove(model: RuledSpec, item: Item): void {
    this.byModel.get(model.name)?.delete(keyOf(model, item));
  }

  clear(): void {
    this.byModel.clear();
  }

  /** A caller's view, or `refused` when a rule needs what its credential lacks. */
  view(model: RuledSpec, caller: CallerSpec): View | 'refused' {
    const reach = reachOf(model, caller);
    return reach === 'refused' ? reach : new View(this, model, caller, reach);
  }

  clone(): AccessTable {
    const copy = new AccessTable();
    for (const [name, items] of this.byModel) copy.byModel.set(name, new Map([...items].map(([k, v]) => [k, structuredClone(v)])));
    return copy;
  }
}
