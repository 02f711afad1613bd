/**
 * Spies on the console method the service logs `level` through, with that level logged for the
 * test even though the run is silent (quiet-logs.ts). The lines are taken, not printed; the
 * spy's mockRestore also puts the run's level back. A line the code stops writing fails the test.
 */
export function spyOnLog(level: 'error' | 'warn' | 'info' | 'debug'): jest.SpyInstance {
  const runLevel = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = level;
  const spy = jest.spyOn(console, level).mockImplementation(() => undefined);
  const restore = spy.mockRestore.bind(spy);
  spy.mockRestore = () => {
    restore();
    if (runLevel === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = runLevel;
  };
  return spy;
}
