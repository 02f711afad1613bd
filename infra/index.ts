/**
 * `recordgate/cdk`: what a team's CDK app imports when recordgate is its dependency
 * (docs/deploying.md, "Adopting recordgate without forking it"): the construct, and the change feed's subscriptions
 * checked at synth against the models it serves.
 */
export { RecordGate, type RecordGateProps } from './record-gate';
export { subscriptionsAtSynth } from './feed';
export { type ModelsChoice, servedModels } from '../catalog/served-models';
