import type * as z from 'zod';
import { hiddenFor } from '../access/caller-rules';
import { countFromAggregate } from '../aggregates/count';
import { countRecords } from '../store/actions/count/count';
import { reached } from '../store/reach';
import { refuseHiddenNames } from './field-rules/load-reads';
import { recordOperation } from './record-operation';
import type { countAnswerSchema } from './responses';
import { countRequest } from './requests/count';

/** A count of one declared group comes from its aggregate's counter (one read); any other from the records. */
export const countOperation = recordOperation(countRequest, async (model, body, options, _headers, caller): Promise<z.infer<typeof countAnswerSchema>> => {
  await refuseHiddenNames(model, await hiddenFor(model, caller), body.filters);
  return (await countFromAggregate(reached(model, options.reach), body)) ?? countRecords(model, body, options);
});
