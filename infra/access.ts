import { ROUTES } from '../shared/http/routes';

/**
 * What each function may touch, decided here once and read by the stack and its tests. A
 * function missing from a list gets nothing: least privilege by default, so a new function
 * fails loudly in AWS until someone states what it needs.
 */
export type TableAccess = 'read' | 'write';

const TABLE_ACCESS: Readonly<Record<string, TableAccess>> = {
  models: 'read',
  health: 'read',
  get_one: 'read',
  list: 'read',
  count: 'read',
  health_check: 'read',
  // create removes its own records again when a batch conflicts, so it needs DeleteItem too.
  create: 'write',
  update: 'write',
  delete: 'write',
  onebot: 'write',
  // Stores the OneBot deliveries kept in the queue while the table was unreachable.
  onebot_queue: 'write',
};

/** Settings read through secretSetting(NAME): a Secrets Manager secret per name, readable only by these functions. */
export type SecretName = 'API_TOKENS' | 'ONEBOT_SECRET' | 'ONEBOT_ACCESS_TOKEN' | 'CURSOR_SECRET';

/** A function checks bearer tokens when one of its routes asks for a scope. */
const checksTokens = (fn: string): boolean => ROUTES.some((r) => r.function === fn && r.scope !== undefined && r.scope !== 'public');

const SECRET_READERS: Readonly<Record<SecretName, (fn: string) => boolean>> = {
  API_TOKENS: checksTokens,
  ONEBOT_SECRET: (fn) => fn === 'onebot',
  // Both act on rules through a bot's HTTP API (ONEBOT_API_ROOTS).
  ONEBOT_ACCESS_TOKEN: (fn) => fn === 'onebot' || fn === 'onebot_queue',
  // Only list signs and checks cursors; get_one reads one page and hands out none.
  CURSOR_SECRET: (fn) => fn === 'list',
};

export const SECRET_NAMES = Object.keys(SECRET_READERS) as SecretName[];

export interface FunctionAccess {
  table?: TableAccess;
  secrets: SecretName[];
}

export function accessOf(fn: string): FunctionAccess {
  return { table: TABLE_ACCESS[fn], secrets: SECRET_NAMES.filter((name) => SECRET_READERS[name](fn)) };
}

/** Routes behind the bearer tokens, which the optional JWT authorizer also guards. */
export const isTokenRoute = (route: (typeof ROUTES)[number]): boolean => route.scope !== undefined && route.scope !== 'public';
