import { indexReadiness } from '../../layout/layout';
import { reached } from '../../reach';
import { countAll } from '../../read/query';
import type { Action, CountAnswer, CountRequest } from '../../types';
import { countRead } from './params';

/** The exact count of matching records, and how many DynamoDB evaluated. Async throughout: a refused filter is a rejection, as with every action. */
export const countRecords: Action<CountRequest, CountAnswer> = async (model, request, { reach } = {}) =>
  countAll(countRead(reached(model, reach), request, await indexReadiness(model)));
