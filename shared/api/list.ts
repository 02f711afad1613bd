import type * as z from 'zod';
import { hiddenFields } from '../access/rules';
import { listRecords } from '../store/actions/list/list';
import { parseOrder } from '../store/read/plan';
import { checkFields } from '../store/read/projection';
import './cursor-key';
import { shownRecord } from './field-rules/answers';
import { refuseHiddenNames } from './field-rules/load-reads';
import { recordOperation } from './record-operation';
import type { listAnswerSchema } from './responses';
import { listRequest } from './requests/list';

export const listOperation = recordOperation(
  listRequest,
  async (model, body, options, _headers, caller): Promise<z.infer<ReturnType<typeof listAnswerSchema>>> => {
    const hidden = hiddenFields(model, caller);
    await refuseHiddenNames(model, hidden, body.filters, undefined, (seen) => {
      parseOrder(seen, body.order_by);
      checkFields(seen, body.fields);
    });
    const page = await listRecords(model, body, options);
    return { ...page, items: page.items.map((item) => shownRecord(item, hidden)) };
  },
);
