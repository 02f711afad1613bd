import type { SQSEvent } from 'aws-lambda';
import { storeQueued } from '../../../shared/onebot/replay';

test('a message that cannot be stored is reported alone, for SQS to retry and then dead-letter', async () => {
  const event = {
    Records: [
      { messageId: 'm1', body: 'not json' },
      { messageId: 'm2', body: '{"headers":{}}' },
    ],
  } as unknown as SQSEvent;
  expect(await storeQueued(event)).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
});
