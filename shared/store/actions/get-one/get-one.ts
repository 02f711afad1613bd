import { RecordNotFound } from '../../errors';
import { indexReadiness } from '../../layout/layout';
import { readPage } from '../../read/query';
import { toRecord } from '../../read/projection';
import type { Action, ApiRecord, GetOneRequest } from '../../types';
import { getOneRead } from './params';

/** The first matching record in id order, or RecordNotFound. */
export const getOneRecord: Action<GetOneRequest, ApiRecord> = async (model, request) => {
  const options = getOneRead(model, request, await indexReadiness(model));
  const page = await readPage(options, 1, undefined, Infinity);
  if (page.items.length === 0) throw new RecordNotFound(model.name);
  return toRecord(page.items[0], request.fields);
};
