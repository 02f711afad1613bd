import type { Model } from '../../../models/define';
import { indexReadiness } from '../../layout/layout';
import { countAll } from '../../read/query';
import type { CountAnswer, CountRequest } from '../../types';
import { countRead } from './params';

/** The exact count of matching records, and how many DynamoDB evaluated. Async throughout: a refused filter is a rejection, as with every action. */
export async function countRecords(model: Model, request: CountRequest): Promise<CountAnswer> {
  return countAll(countRead(model, request, await indexReadiness(model)));
}
