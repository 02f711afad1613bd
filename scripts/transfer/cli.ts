import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
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

/** What the command says instead of a stack: a StartupError's message, or the missing table named. */
function oneLine(error: unknown): string | undefined {
  if (error instanceof StartupError) return error.message;
  if (error instanceof ResourceNotFoundException)
    return `table ${process.env.TABLE_NAME} does not exist there: set TABLE_NAME, --endpoint or --aws to where it is`;
  return undefined;
}

/** Runs a command: its exit code; exit 2 with one line when it cannot run, or with the error's stack. */
export function runCommand(name: string, main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      const line = oneLine(error);
      console.error(line === undefined ? error : `${name} cannot run: ${line}`);
      process.exit(2);
    },
  );
}
