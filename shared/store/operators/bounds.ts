import type * as zm from '../../zod';

type ZodType = zm.core.$ZodType;

/** A number field's checks that a condition expression can state: its bounds, and whether it takes integers only. */
export interface NumberBounds {
  integer: boolean;
  min?: { value: number; inclusive: boolean };
  max?: { value: number; inclusive: boolean };
}

/** What an atomic update may rely on about a top-level field; undefined when its schema checks more than a condition can state. */
export type FieldRule =
  | { kind: 'number'; optional: boolean; bounds: NumberBounds }
  | { kind: 'array'; optional: boolean; element: ZodType; minLength?: number; maxLength?: number }
  | { kind: 'other'; optional: boolean };

const INTEGER_FORMATS: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
};

type Check = { check: string; value?: number; inclusive?: boolean; format?: string; maximum?: number; minimum?: number };
const checksOf = (schema: ZodType): Check[] => (schema._zod.def.checks ?? []).map((c) => c._zod.def as unknown as Check);

function tighter(bounds: NumberBounds, side: 'min' | 'max', value: number, inclusive: boolean): void {
  const held = bounds[side];
  const better = held === undefined || (side === 'min' ? value > held.value : value < held.value) || (value === held.value && !inclusive);
  if (better) bounds[side] = { value, inclusive };
}

function numberBounds(schema: ZodType): NumberBounds | undefined {
  const bounds: NumberBounds = { integer: false };
  const formats = [(schema._zod.def as { format?: string }).format];
  for (const check of checksOf(schema)) {
    if (check.check === 'number_format') formats.push(check.format);
    else if (check.check === 'greater_than') tighter(bounds, 'min', check.value!, check.inclusive!);
    else if (check.check === 'less_than') tighter(bounds, 'max', check.value!, check.inclusive!);
    else return undefined;
  }
  for (const format of formats) {
    if (format === undefined) continue;
    const range = INTEGER_FORMATS[format];
    if (!range) return undefined;
    bounds.integer = true;
    tighter(bounds, 'min', range[0], true);
    tighter(bounds, 'max', range[1], true);
  }
  return bounds;
}

/**
 * The rule of one field's zod schema, read from its definition (zod and zod/mini share it):
 * numbers with bounds and integer formats, arrays with length bounds, other kinds to be set
 * whole. A refinement, a default, a transform or a union is more than a condition can state.
 */
export function fieldRule(schema: ZodType): FieldRule | undefined {
  let inner = schema;
  const optional = inner._zod.def.type === 'optional';
  if (optional) inner = (inner._zod.def as unknown as { innerType: ZodType }).innerType;
  const def = inner._zod.def;
  if (def.type === 'number') {
    const bounds = numberBounds(inner);
    return bounds && { kind: 'number', optional, bounds };
  }
  if (def.type === 'array') {
    const rule: FieldRule = { kind: 'array', optional, element: (def as unknown as { element: ZodType }).element };
    for (const check of checksOf(inner)) {
      if (check.check === 'max_length') rule.maxLength = check.maximum;
      else if (check.check === 'min_length') rule.minLength = check.minimum;
      else return undefined;
    }
    return rule;
  }
  if (['default', 'prefault', 'pipe', 'transform', 'catch', 'union', 'lazy'].includes(def.type)) return undefined;
  return { kind: 'other', optional };
}
