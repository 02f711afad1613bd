import { detached, withinInvocation } from '../../shared/invocation';
import { log } from '../../shared/log';
import { spyOnLog } from '../support/log';

const linesOf = (spy: jest.SpyInstance) => spy.mock.calls.map(([line]) => JSON.parse(line as string));

test('every line written inside an invocation carries its request id, however deep and however late in it; none outside', async () => {
  const warn = spyOnLog('warn');
  try {
    log.warn('outside');
    await withinInvocation({ awsRequestId: 'req-7', getRemainingTimeInMillis: () => 60_000 }, async () => {
      log.warn('first', { n: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1));
      log.warn('after_a_timer');
      await new Promise<void>((resolve) =>
        detached(() =>
          setTimeout(() => {
            log.warn('detached');
            resolve();
          }, 1),
        ),
      );
    });
    expect(linesOf(warn)).toEqual([
      { level: 'warn', code: 'outside' },
      { level: 'warn', code: 'first', request_id: 'req-7', n: 1 },
      { level: 'warn', code: 'after_a_timer', request_id: 'req-7' },
      { level: 'warn', code: 'detached' },
    ]);
  } finally {
    warn.mockRestore();
  }
});

test('two invocations at once each name their own', async () => {
  const info = spyOnLog('info');
  try {
    const run = (id: string) =>
      withinInvocation({ awsRequestId: id }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        log.info('done', { id });
      });
    await Promise.all([run('a'), run('b')]);
    for (const line of linesOf(info)) expect(line.request_id).toBe(line.id);
  } finally {
    info.mockRestore();
  }
});

test('a level below LOG_LEVEL writes nothing', () => {
  const info = spyOnLog('info');
  const debug = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  try {
    log.debug('quiet');
    expect(debug).not.toHaveBeenCalled();
  } finally {
    debug.mockRestore();
    info.mockRestore();
  }
});
