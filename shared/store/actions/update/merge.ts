import type { Model } from '../../../models/model';
import { expiryAttributes } from '../../expiry/ttl';
import { indexAttributes } from '../../keys';
import type { Item } from '../../read/query';
import { DATA_ATTRIBUTE, VERSION_ATTRIBUTE } from '../../table';

/** The item as an update would leave it (a close upper bound for its size: timestamps and tokens keep their length). */
export const updatedItem = (model: Model, item: Item, data: Record<string, unknown>): Item => ({
  ...item,
  ...indexAttributes(model, item.id as string, data),
  ...expiryAttributes(model, data),
  [DATA_ATTRIBUTE]: data,
  [VERSION_ATTRIBUTE]: (item[VERSION_ATTRIBUTE] as number) + 1,
});
