import type { Context } from 'aws-lambda';
import { answerCustomResource, isCustomResourceEvent } from '../../shared/deploy/custom-resource';
import { invocationDeadline, withDeadline, withinInvocation } from '../../shared/invocation';
import { log } from '../../shared/log';
import { loadAllModels } from '../../shared/models/load-all';
import { buildAll } from '../../shared/aggregates/backfill';

/** Time kept back from a deploy's run to answer CloudFormation before the function's timeout. */
const ANSWER_RESERVE_MS = 10_000;

/** Records every model's layout, fills new indexes and backfills new aggregates until the invocation's deadline; throws naming every model its stored records refuse. */
async function run(): Promise<void> {
  const builds = await buildAll(await loadAllModels());
  for (const build of builds)
    if (build.filled > 0 || build.building.length > 0 || build.applied || build.aggregates_building?.length) log.info('index_build', { ...build });
  const refused = builds.filter((b) => b.refused).map((b) => b.refused);
  if (refused.length > 0) throw new Error(refused.join('\n'));
}

/**
 * Invoked by every deploy that changes a model (a custom resource, infra/index-build.ts) and
 * every five minutes. A model change its stored records cannot follow fails the deploy, which
 * CloudFormation then rolls back; on the schedule it fails the run, and the function's error
 * alarm fires. An index build goes on from run to run until it is done.
 */
export const handler = (event: unknown, context: Context): Promise<void> =>
  withinInvocation(context, async () => {
    if (!isCustomResourceEvent(event)) return run();
    // The deploy's run ends early enough to answer CloudFormation before the timeout.
    const deadline = invocationDeadline()! - ANSWER_RESERVE_MS;
    return answerCustomResource(event, 'recordgate-model-layouts', () => withDeadline(deadline, run));
  });
