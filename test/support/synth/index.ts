import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { SynthVariant } from './variants';

export { SYNTH_VARIANTS, type SynthVariant } from './variants';

/** Blocks this thread for `ms` without burning CPU (the wait for another worker's synthesis). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Synthesizes every variant of ./variants.ts once per run, in one child process, the first time
 * any test file asks; later files (and other workers, which wait for it) read the JSON. No
 * deadline on the wait: the child's exit writes `done`, whatever the machine's speed.
 */
function synthesizeAll(): string {
  const dir = process.env.RG_SYNTH_DIR ?? mkdtempSync(join(tmpdir(), 'recordgate-synth-'));
  process.env.RG_SYNTH_DIR = dir;
  const done = join(dir, 'done');
  let lock: number | undefined;
  try {
    lock = openSync(join(dir, 'lock'), 'wx');
  } catch {
    // Another worker is synthesizing: wait for its marker.
  }
  if (lock === undefined) {
    while (!existsSync(done)) pause(100);
  } else {
    closeSync(lock);
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'run.ts'), dir], { encoding: 'utf8', cwd: join(__dirname, '../../..') });
    writeFileSync(done, child.status === 0 ? '' : `synthesis process failed (${child.status}): ${child.stderr}`);
  }
  const failure = readFileSync(done, 'utf8');
  if (failure) throw new Error(failure);
  return dir;
}

interface Synthesized {
  template: Template;
  /** cdk-nag AwsSolutions findings left unacknowledged, as `rule at construct path`. */
  violations: string[];
}

const read = (name: SynthVariant) => JSON.parse(readFileSync(join(synthesizeAll(), `${name}.json`), 'utf8'));

/** One variant's template (as `Template.fromStack` would give it) and its cdk-nag findings. */
export function synthesized(name: SynthVariant): Synthesized {
  const result = read(name);
  if (result.error) throw new Error(`synth of ${name} failed: ${result.error}`);
  return { template: Template.fromJSON(result.template), violations: result.violations };
}

/** A variant's cloud assembly, for the CDK CLI's `--app`. */
export const assemblyOf = (name: SynthVariant): string => join(synthesizeAll(), `${name}.assembly`);

/** The message a variant's synthesis stopped with (for the variants that must be refused). */
export function synthError(name: SynthVariant): string | undefined {
  return read(name).error;
}

type Resources = Record<string, { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;

/** Lookups over a synthesized template, by what a reader of the stack knows: function names. */
export function templateIndex(template: Template) {
  const resources = template.toJSON().Resources as Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const functionId = (name: string): string => {
    const found = ofType('AWS::Lambda::Function').find(([, r]) => r.Properties.Description === `recordgate ${name}`);
    if (!found) throw new Error(`no function ${name}`);
    return found[0];
  };
  const functionProps = (name: string) => resources[functionId(name)].Properties;
  /** Every IAM action granted to a function's role, with the resources of each statement. */
  const statementsOf = (name: string): Array<{ actions: string[]; resources: unknown[] }> => {
    const roleId = functionProps(name).Role['Fn::GetAtt'][0];
    return ofType('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement)
      .map((s: { Action: string | string[]; Resource: unknown }) => ({ actions: [s.Action].flat(), resources: [s.Resource].flat() }));
  };
  const actionsOf = (name: string) => new Set(statementsOf(name).flatMap((s) => s.actions));
  return { resources, ofType, functionId, functionProps, statementsOf, actionsOf };
}
