import { RecordNotFound } from '../../errors';
import { indexReadiness } from '../../layout/layout';
import { readPage } from '../../read/query';
import { toRecord } from '../../read/projection';
import type { Action, ApiRecord, GetOneRequest } from '../../types';
import { entityTag } from '../../write/entity-tag';
import { getOneRead } from './params';

/** The first matching record in id order with its entity tag (shared/store/write/entity-tag.ts), or RecordNotFound. */
export const getOneTagged: Action<GetOneRequest, { record: ApiRecord; etag: string }> = async (model, request) => {
  const options = getOneRead(model, request, await indexReadiness(model));
  const page = await readPage(options, 1, undefined, Infinity);
  if (page.items.length === 0) throw new RecordNotFound(model.name);
  return { record: toRecord(page.items[0], request.fields), etag: entityTag(page.items[0]) };
};

/** The first matching record in id order, or RecordNotFound. */
export const getOneRecord: Action<GetOneRequest, ApiRecord> = async (model, request) => (await getOneTagged(model, request)).record;
