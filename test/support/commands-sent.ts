import { db } from '../../shared/store/client';

/** The commands the service sends the engine while `work` runs (the local server shares this process's client). */
export async function commandsSent(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const sent: Record<string, number> = {};
  const name = 'commands-sent';
  db().middlewareStack.add(
    (next, context) => (args) => {
      sent[context.commandName ?? '?'] = (sent[context.commandName ?? '?'] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    db().middlewareStack.remove(name);
  }
  return sent;
}
