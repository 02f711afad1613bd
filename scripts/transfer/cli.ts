import { parseArgs, type ParseArgsConfig } from 'node:util';
import { findModel, MODEL_NAMES } from '../../shared/models/catalog';
import type { Model } from '../../shared/models/model';
import { StartupError } from '../local/startup';

/** The options both commands take: which model, and where its table is (scripts/transfer/table.ts). */
const COMMON = {
  model: { type: 'string' },
  endpoint: { type: 'string' },
  aws: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/** The command's options, or a StartupError saying what is wrong with them. */
export function readArgs<O extends NonNullable<ParseArgsConfig['options']>>(own: O, usage: string) {
  try {
    return parseArgs({ options: { ...COMMON, ...own }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new StartupError(`${(error as Error).message}; usage: ${usage}`);
  }
}

export async function modelNamed(name: string | undefined): Promise<Model> {
  const model = name === undefined ? undefined : await findModel(name);
  if (!model) throw new StartupError(`${name === undefined ? 'no --model given' : `no model ${name}`}; the models: ${MODEL_NAMES.join(', ')}`);
  return model;
}

/** Runs a command: its exit code, a StartupError as one line and exit 2, anything else with its stack. */
export function runCommand(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof StartupError ? `${name} cannot run: ${error.message}` : error);
      process.exit(2);
    },
  );
}
