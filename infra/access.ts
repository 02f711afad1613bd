import { ROUTES, type FunctionName } from '../shared/http/routes';

/** Every function deployed: the route table's, the scheduled health check and the OneBot queue's consumer. */
export type DeployedFunction = FunctionName | 'health_check' | 'onebot_queue';

type DynamoAction = 'dynamodb:GetItem' | 'dynamodb:Query' | 'dynamodb:PutItem' | 'dynamodb:UpdateItem' | 'dynamodb:DeleteItem';

const QUERY: DynamoAction[] = ['dynamodb:Query'];
// A write whose answer was lost is recognised by reading the item back (shared/store/records.ts).
const CREATE: DynamoAction[] = ['dynamodb:PutItem', 'dynamodb:GetItem', 'dynamodb:DeleteItem'];
const HEALTH: DynamoAction[] = ['dynamodb:GetItem', 'dynamodb:Query'];
const ONEBOT: DynamoAction[] = [...CREATE, 'dynamodb:Query', 'dynamodb:UpdateItem'];

/**
 * The DynamoDB actions each function sends, and nothing more: decided here once and read by the
 * stack and its tests; the artifact tests check that every action a bundle sends is listed.
 * A function missing here gets no table at all (no grant, no TABLE_NAME).
 */
const TABLE_ACTIONS: Readonly<Partial<Record<DeployedFunction, ReadonlyArray<DynamoAction>>>> = {
  health: HEALTH,
  health_check: HEALTH,
  get_one: QUERY,
  list: QUERY,
  count: QUERY,
  // create removes its own records again when a batch conflicts, hence DeleteItem.
  create: CREATE,
  update: ['dynamodb:Query', 'dynamodb:UpdateItem', 'dynamodb:GetItem'],
  delete: ['dynamodb:Query', 'dynamodb:DeleteItem', 'dynamodb:GetItem'],
  // Events are created, rules listed, and bot status created or updated.
  onebot: ONEBOT,
  // Stores the OneBot deliveries kept in the queue while the table was unreachable, as onebot does.
  onebot_queue: ONEBOT,
};

/** Settings read through secretSetting(NAME): a Secrets Manager secret per name, readable only by these functions. */
export type SecretName = 'API_TOKENS' | 'ONEBOT_SECRET' | 'ONEBOT_ACCESS_TOKEN' | 'CURSOR_SECRET';

/** A function checks bearer tokens when one of its routes asks for a scope. */
const checksTokens = (fn: DeployedFunction): boolean => ROUTES.some((r) => r.function === fn && isTokenRoute(r));

const SECRET_READERS: Readonly<Record<SecretName, (fn: DeployedFunction) => boolean>> = {
  API_TOKENS: checksTokens,
  ONEBOT_SECRET: (fn) => fn === 'onebot',
  // list signs and checks cursors, and update and delete hand out a cursor when they stop early.
  CURSOR_SECRET: (fn) => fn === 'list' || fn === 'update' || fn === 'delete',
  // Both act on rules through a bot's HTTP API (ONEBOT_API_ROOTS).
  ONEBOT_ACCESS_TOKEN: (fn) => fn === 'onebot' || fn === 'onebot_queue',
};

export const SECRET_NAMES = Object.keys(SECRET_READERS) as SecretName[];

export interface FunctionAccess {
  tableActions: ReadonlyArray<DynamoAction>;
  secrets: SecretName[];
}

export function accessOf(fn: DeployedFunction): FunctionAccess {
  return { tableActions: TABLE_ACTIONS[fn] ?? [], secrets: SECRET_NAMES.filter((name) => SECRET_READERS[name](fn)) };
}

/** Routes behind the bearer tokens, which the optional JWT authorizer also guards. */
export function isTokenRoute(route: (typeof ROUTES)[number]): boolean {
  return route.scope !== undefined && route.scope !== 'public';
}
