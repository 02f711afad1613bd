import { RecordNotFound } from '../../errors';
import { indexReadiness } from '../../layout/layout';
import { reached } from '../../reach';
import { readPage } from '../../read/query';
import { toRecord } from '../../read/projection';
import type { Action, ApiRecord, GetOneRequest } from '../../types';
import { entityTag } from '../../write/entity-tag';
import { getOneRead } from './params';

/** The first matching record in id order with its entity tag (shared/store/write/entity-tag.ts), or RecordNotFound. */
export const getOneTagged: Action<GetOneRequest, { record: ApiRecord; etag: string }> = async (model, request, { reach } = {}) => {
  const read = getOneRead(reached(model, reach), request, await indexReadiness(model));
  const page = await readPage(read, 1, undefined, Infinity);
  // Outside the caller's reach a record is not read at all, so it is as missing as one never made.
  if (page.items.length === 0) throw new RecordNotFound(model.name);
  return { record: toRecord(page.items[0], request.fields), etag: entityTag(page.items[0]) };
};

/** The first matching record in id order, or RecordNotFound. */
export const getOneRecord: Action<GetOneRequest, ApiRecord> = async (model, request, options) => (await getOneTagged(model, request, options)).record;
