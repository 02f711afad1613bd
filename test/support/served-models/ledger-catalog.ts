import { ledgerModel } from '../models';

/**
 * Stands in for shared/models/catalog.ts in a process started with swap.cjs: the ledger model and
 * its re-keyed twin, for the export and import commands the export-import test runs.
 */
const MODELS = { ledger: ledgerModel('ledger'), ledger_moved: ledgerModel('ledger_moved', { shards: 2, indexed: ['amount', 'big'] }) };

export const MODEL_NAMES = Object.keys(MODELS);

export const findModel = async (name: string) => (Object.hasOwn(MODELS, name) ? MODELS[name as keyof typeof MODELS] : undefined);
