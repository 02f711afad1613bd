import { transactionOperation } from '../../shared/api/transaction';
import { httpHandler } from '../../shared/http/middleware';

export const handler = httpHandler('transaction', transactionOperation);
