import type { Model } from '../shared/models/model';
import { servedInThisProcess } from './in-process';

/** shared/models/every-model.ts in a process that serves a team's models (./in-process.ts). */
export const allModels = (): Model[] => [...servedInThisProcess().all];
