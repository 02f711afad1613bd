import type { Model } from './model';

/** reaction loaded synchronously by the call, apart from its loader, as ./built-in-onebot-now.ts says why. */
export const reactionModels = (): Model[] => [(require('./reaction') as typeof import('./reaction')).reaction];
