import { handler } from '../../functions/health_check/handler';
import { lambdaContext } from '../../scripts/local/event';

/** Runs the scheduled health check once and returns the EMF documents it wrote to stdout. */
export async function runHealthCheck(): Promise<Array<Record<string, any>>> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await handler({}, lambdaContext('health_check', 'health-check-test'));
  } finally {
    write.mockRestore();
  }
  return lines
    .flatMap((line) => line.split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((doc) => doc._aws);
}
