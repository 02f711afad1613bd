import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { DeployContext } from './context';
import type { Subscription } from '../shared/feed/subscriptions';
import { RecordGate } from './record-gate';

export interface RecordgateStackProps extends StackProps {
  settings: DeployContext;
  /** The change feed's subscriptions as the synth checked them (infra/feed.ts subscriptionsAtSynth). */
  subscriptions: ReadonlyArray<Subscription>;
}

/**
 * The forked layout's stack: the whole service (./record-gate.ts) with recordgate's own models,
 * under the id `Default`, which keeps every logical id this stack had before the construct.
 */
export class RecordgateStack extends Stack {
  constructor(scope: Construct, id: string, props: RecordgateStackProps) {
    super(scope, id, props);
    new RecordGate(this, 'Default', { settings: props.settings, subscriptions: props.subscriptions });
  }
}
