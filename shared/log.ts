import { logLevel, type LogLevel } from './config';
import { currentRequestId } from './invocation';

/**
 * The service's one logger: a JSON line per event, `{"level", "code", "request_id", ...fields}`,
 * where `code` is stable for alarms and searches and `request_id` is Lambda's id of the
 * invocation the line is written in (shared/invocation.ts; absent outside one, as in the local
 * spool's drain), as Powertools' Logger adds the Lambda context to every line. Lines go through the console method of their level, so
 * Lambda's log format sees the right level. shared/health/emf.ts writes its metric documents to
 * stdout itself: those are data for CloudWatch, not log lines, and no level may silence them.
 */
type Level = Exclude<LogLevel, 'silent'>;
type Fields = Record<string, unknown>;

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 4 };

function write(level: Level, code: string, fields: Fields): void {
  if (RANK[level] < RANK[logLevel()]) return;
  // Looked up per line, not kept: a test spying on console sees every line.
  console[level](JSON.stringify({ level, code, request_id: currentRequestId(), ...fields }));
}

export const log = {
  error: (code: string, fields: Fields = {}) => write('error', code, fields),
  warn: (code: string, fields: Fields = {}) => write('warn', code, fields),
  info: (code: string, fields: Fields = {}) => write('info', code, fields),
  debug: (code: string, fields: Fields = {}) => write('debug', code, fields),
};

/** What a log line keeps of a thrown value: its name and message, and its stack where asked for. */
export function causeOf(error: unknown, { stack = false } = {}): { name?: string; message?: string; stack?: string } {
  const e = error as { name?: string; message?: string; stack?: string } | undefined;
  return stack ? { name: e?.name, message: e?.message, stack: e?.stack } : { name: e?.name, message: e?.message };
}
