import type { Model } from './model';

// Apart from define.ts, whose zod and JSON Schema code a function that serves no model (the public
// documents, health) never loads: every function's chain asks these of the models a request names.

/** Whether a model keeps callers to some of its records (an owner or a tenant rule): docs/security.md. */
export const hasRowRules = (model: Model): boolean => model.owner !== undefined || model.tenant !== undefined;

/** Whether a model gives single fields a rule for API callers. */
export const hasFieldRules = (model: Model): boolean => Object.keys(model.fields).length > 0;
