import type { Model } from '../models/model';
import type { Reach } from './types';

/** Each view's model as defined and the reach it is narrowed to. */
const views = new WeakMap<Model, { base: Model; reach: Reach }>();

/**
 * The model as one caller reaches it: the same definition, carrying the caller's reach, so that
 * every key (shared/store/keys.ts) and every filter (shared/store/filter/reach.ts) an action
 * derives from it, down to its reads by id and its late-write checks, lies within that reach
 * without each of them being handed it. An action narrows its model once, at its start; no
 * reach, or a model without row rules, is the model itself.
 */
export function reached(model: Model, reach: Reach | undefined): Model {
  if (!reach || (!model.owner && !model.tenant)) return model;
  const base = baseModel(model);
  const view = Object.create(base) as Model;
  views.set(view, { base, reach });
  return view;
}

/** The reach a model view carries (reached), undefined for the model itself: the service's own work, which reaches every record. */
export const reachIn = (model: Model): Reach | undefined => views.get(model)?.reach;

/** The model as defined, under any view: what per-definition caches (the layout's) are keyed by. */
export const baseModel = (model: Model): Model => views.get(model)?.base ?? model;
