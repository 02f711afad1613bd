import { readFileSync } from 'node:fs';

/** Linux's USER_HZ, the unit of /proc's CPU times, 100 on every architecture Node runs on there. */
const TICKS_PER_SECOND = 100;

/**
 * CPU milliseconds a process and every living process under it have spent (Linux /proc), or
 * undefined where there is no /proc: the local server's own share of the machine, its feed's
 * process included, apart from the engine's and the load generator's.
 */
export function processTreeCpuMs(pid: number): number | undefined {
  let stat: string;
  let children: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
  } catch {
    return undefined;
  }
  // After the command's closing parenthesis: utime and stime are the 12th and 13th fields.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  const pids = children.trim().split(/\s+/).filter(Boolean).map(Number);
  return pids.reduce((sum, child) => sum + (processTreeCpuMs(child) ?? 0), own);
}
