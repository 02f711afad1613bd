import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { useApi } from '../support/api';
import { useClock } from '../support/clock';
import { fuzzed, fuzzTimeout } from '../support/fuzz';
import { deep, LEAKS, NESTINGS } from '../support/hostile';
import { tableSnapshot, watchedTable } from '../support/table-snapshot';
import { dynamoNumberProblem, parseDecimal } from '../../shared/json/decimal';
import { parseExactJson } from '../../shared/json/exact-json';
import { idOf, ROUTES, SELF_ID, sign, spoolDrained } from './onebot-fixtures';

/**
 * Hostile OneBot deliveries, generated: whatever a sender (or someone posing as one) puts in
 * the headers and the body, no answer is a 5xx or leaks internals, a refused delivery stores
 * nothing, and an accepted one is stored once, as received, and answered the same way again.
 */
const api = useApi();
const clock = useClock();
const SECRET = 'hostile-秘密';
interface Answer {
  status: number;
  text: string;
  body: any;
} // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * POSTs exact bytes with node:http rather than fetch: a header named twice must go out as two
 * header lines (as a misbehaving proxy sends them), which fetch would fold into one.
 */
function send(path: string, body: Buffer, headers: ReadonlyArray<[string, string]>): Promise<Answer> {
  const grouped: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const before = grouped[name];
    grouped[name] = before === undefined ? value : [...[before].flat(), value];
  }
  return new Promise((resolve, reject) => {
    const req = request(
      `${api.url}${path}`,
      // A connection of its own: a kept-alive one the server closes after 5 idle seconds (longer on a
      // loaded machine, between the table reads of the last test) can be reset as this request starts.
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'user-agent': 'CQHttp/4.15.0', ...grouped } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text ? parseExactJson(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// ---------------------------------------------------------------- generated bodies

/**
 * JSON text built by hand, so that keys such as __proto__, duplicate keys and literals such as
 * 1e400 reach the wire as written. `risky`: something in it may rightly be refused (a number
 * DynamoDB cannot hold, nesting past what it stores, a post_type that is not one).
 */
interface Json {
  text: string;
  risky: boolean;
}
const raw = (text: string, risky = false): Json => ({ text, risky });
const str = (s: string): Json => raw(JSON.stringify(s));
const objectOf = (entries: ReadonlyArray<[string, Json]>): Json =>
  raw(
    `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v.text}`).join(',')}}`,
    entries.some(([, v]) => v.risky),
  );
const arrayOf = (items: ReadonlyArray<Json>): Json =>
  raw(
    `[${items.map((v) => v.text).join(',')}]`,
    items.some((v) => v.risky),
  );

/** Keys DynamoDB or the SDK's marshaller cannot hold in a map: such an event is stored whole beside the table (event_ref). */
const UNMAPPABLE_KEYS = ['__proto__', 'constructor', ''];
const PROTOTYPE_KEYS = ['prototype', 'toString', 'valueOf', 'hasOwnProperty', 'toJSON', 'isPrototypeOf'];
const DYNAMO_WORDS = [
  '#a',
  ':v',
  ')',
  '(',
  'OR',
  'AND',
  'a OR b',
  '#pk = :pk',
  'attribute_exists(pk)',
  'SET d = :v',
  'REMOVE d',
  'size',
  'name',
  'value',
  'key',
  'pk',
  'sk',
  'd',
  'id',
  '_version',
  'gsi1pk',
  'TTL',
  'user_id.x',
  'a[0]',
  '.',
  '$or',
  '$in',
];
const ADVERSARIAL_KEYS = [...PROTOTYPE_KEYS, ...DYNAMO_WORDS, ' ', '\u0000', '\u202e', '\ud800', '😀', 'ÿ'.repeat(300)];
const ADVERSARIAL_STRINGS = [
  '',
  ' ',
  ...DYNAMO_WORDS,
  '\u0000',
  '\ud800',
  '\udfff\ud800',
  '\\',
  '"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: '${x}' is hostile input sent as written, not a template
  '${x}',
  'x'.repeat(1100),
  'é'.repeat(700),
  '../../etc/passwd',
  '<script>',
];
/** Numbers DynamoDB holds, though JS numbers do not hold all of them: -0, ids beyond 2^53 and 2^64, 38 digits. */
const HOLDABLE_NUMBERS = [
  '-0',
  '0.1',
  '1.50',
  '1e2',
  '9007199254740993',
  '18446744073709551617',
  '-9223372036854775809',
  '99999999999999999999999999999999999999',
  '1E+125',
  '1e-129',
  '-2147483648',
];
/** Numbers DynamoDB cannot hold: 1e400 would be Infinity, 40 digits exceed 38. */
const UNHOLDABLE_NUMBERS = ['1e400', '-1e400', '1e-400', '1234567890123456789012345678901234567890', '1E+126', '5e-131'];

const key = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...ADVERSARIAL_KEYS) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) });
/** Objects never repeat a key here (the parser refuses that; one fixed body covers it). */
const entriesOf = <T>(value: fc.Arbitrary<T>, maxLength: number, keys: fc.Arbitrary<string> = key) =>
  fc.uniqueArray(fc.tuple(keys, value), { maxLength, selector: ([k]) => k });
const scalar: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOLDABLE_NUMBERS).map((n) => raw(n)) },
  { weight: 4, arbitrary: fc.constantFrom(...ADVERSARIAL_STRINGS).map(str) },
  { weight: 4, arbitrary: fc.string({ maxLength: 20 }).map(str) },
  // fc.double favours extremes such as 5e-324, which DynamoDB cannot hold; those come one per event below.
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.integer(), fc.integer({ min: -30, max: 30 }))
      .map(([m, e]) => JSON.stringify(m * 10 ** e))
      .map((t) => raw(t, dynamoNumberProblem(t) !== undefined)),
  },
  { weight: 2, arbitrary: fc.constantFrom('true', 'false', 'null').map((t) => raw(t)) },
);
const { value: jsonValue } = fc.letrec<{ value: Json; object: Json; array: Json }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: entriesOf(tie('value'), 5).map(objectOf),
  array: fc.array(tie('value'), { maxLength: 5 }).map(arrayOf),
}));
/** An object whose keys are prototype names with objects under them, the classic pollution payload. */
const pollution: fc.Arbitrary<Json> = // Unmappable keys only here and rarely, so that most events are stored as records.
  fc
    .tuple(fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...UNMAPPABLE_KEYS) }, { weight: 20, arbitrary: fc.constantFrom(...PROTOTYPE_KEYS) }), jsonValue)
    .map(([k, v]) =>
      objectOf([
        [
          k,
          objectOf([
            ['polluted', raw('true')],
            ['prototype', objectOf([['polluted', raw('true')]])],
            ['text', str('x')],
            ['type', str('text')],
            ['x', v],
          ]),
        ],
      ]),
    );
/** Values that break code which coerces them: objects with own toString/valueOf that are not functions. */
const coercionTrap: fc.Arbitrary<Json> = fc
  .constantFrom('{"toString":1}', '{"valueOf":1,"toString":"x"}', '[{"toString":1}]', '{"prototype":{"toString":1}}', '[]', '{}', '[[]]')
  .map((t) => raw(t));
const idValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(10001, 20002, 30003, 0, -1).map((n) => raw(String(n))) },
  { weight: 3, arbitrary: fc.constantFrom(...HOLDABLE_NUMBERS).map((n) => raw(n)) },
  { weight: 1, arbitrary: fc.constantFrom(...UNHOLDABLE_NUMBERS).map((n) => raw(n, true)) },
  { weight: 3, arbitrary: fc.constantFrom('10001', '30003', '', '1'.repeat(40), 'x'.repeat(1100), '#a', ':v', '\ud800').map(str) },
  { weight: 2, arbitrary: coercionTrap },
  { weight: 1, arbitrary: pollution },
  { weight: 1, arbitrary: fc.constantFrom('true', 'null').map((t) => raw(t)) },
);

/** CQ-code text, well formed or not: unclosed codes, stray brackets, broken entities, huge parameters. */
const cqText: fc.Arbitrary<Json> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '[CQ:face,id=178]',
        '[CQ:',
        '[CQ:]',
        '[CQ:at,qq=all',
        ']',
        '[',
        '&#91;',
        '&#93;',
        '&#44;',
        '&amp;',
        '&amp;#91;',
        '&#',
        '&',
        ',',
        '=',
        `[CQ:image,file=${'a'.repeat(3000)}]`,
        '[CQ:,,,==]',
        '[CQ:face,id=[CQ:face]]',
        'ping',
        '[help]',
        '\u0000',
        '\ud800',
      ),
      fc.string({ maxLength: 10 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => str(parts.join('')));
const segment: fc.Arbitrary<Json> = fc.oneof(
  fc.tuple(fc.constantFrom('text', 'face', 'at', 'image', '', '__proto__', 'constructor'), fc.oneof(cqText, jsonValue, pollution)).map(([type, text]) =>
    objectOf([
      ['type', str(type)],
      ['data', objectOf([['text', text]])],
    ]),
  ),
  fc.tuple(fc.oneof(fc.constant(str('text')), jsonValue, coercionTrap), fc.oneof(jsonValue, pollution, coercionTrap)).map(([type, data]) =>
    objectOf([
      ['type', type],
      ['data', data],
    ]),
  ),
  pollution,
  coercionTrap,
  jsonValue,
);
const message: fc.Arbitrary<Json> = fc.oneof(cqText, fc.array(segment, { maxLength: 8 }).map(arrayOf), segment, jsonValue);

/** A OneBot-shaped event: a post_type, the fields the receiver reads, each hostile at times, and extra keys. */
const event: fc.Arbitrary<Json> = fc
  .record({
    postType: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('message', 'message', 'notice', 'request', 'meta_event').map((t) => str(t)) },
      {
        weight: 2,
        arbitrary: fc.constantFrom('message_sent', 'unknown', '__proto__', 'constructor', ' ', '#a', ':v', 'OR', 'x'.repeat(2000), '\ud800').map(str),
      },
      { weight: 1, arbitrary: fc.string({ maxLength: 10 }).map(str) },
    ),
    // Mostly a type the receiver acts on (rules for private/group messages and friend/group requests, bot status for heartbeat/lifecycle).
    detail: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('private', 'group', 'friend', 'heartbeat', 'lifecycle', 'poke').map(str) },
      jsonValue,
      coercionTrap,
    ),
    subType: fc.option(fc.oneof(fc.constantFrom('enable', 'disable', 'connect', 'normal').map(str), jsonValue)),
    ids: fc.uniqueArray(
      fc.tuple(fc.constantFrom('self_id', 'user_id', 'group_id', 'user_id', 'group_id', 'message_id', 'time', 'interval', 'operator_id'), idValue),
      { maxLength: 5, selector: ([k]) => k },
    ),
    message: fc.option(message),
    rawMessage: fc.option(cqText),
    sender: fc.option(
      fc.oneof(pollution, entriesOf(fc.oneof(idValue, jsonValue), 5, fc.oneof(key, fc.constantFrom('user_id', 'nickname', 'card'))).map(objectOf)),
    ),
    status: fc.option(fc.oneof(pollution, coercionTrap, jsonValue, fc.constant(raw('{"online":true,"good":false}')))),
    comment: fc.option(fc.oneof(cqText, jsonValue, coercionTrap)),
    extra: entriesOf(fc.oneof(jsonValue, pollution, coercionTrap), 4),
    unholdable: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.oneof(
          fc.constantFrom(...UNHOLDABLE_NUMBERS),
          fc.double().map((n) => JSON.stringify(n)),
        ),
      },
    ),
  })
  .map(({ postType, detail, subType, ids, message: m, rawMessage, sender, status, comment, extra, unholdable }) => {
    const detailKey =
      ['message_type', 'notice_type', 'request_type', 'meta_event_type'][['"message"', '"notice"', '"request"', '"meta_event"'].indexOf(postType.text)] ??
      'message_type';
    const entries: [string, Json][] = [
      ['post_type', postType],
      [detailKey, detail],
    ];
    if (subType) entries.push(['sub_type', subType]);
    entries.push(...ids);
    if (m) entries.push(['message', m]);
    if (rawMessage) entries.push(['raw_message', rawMessage]);
    if (sender) entries.push(['sender', sender]);
    if (status) entries.push(['status', status]);
    if (comment) entries.push(['comment', comment]);
    if (unholdable) entries.push(['font', raw(unholdable, dynamoNumberProblem(unholdable) !== undefined)]);
    // An extra key never repeats one set above; it may still be post_type or self_id when nothing set it.
    entries.push(...extra.filter(([k]) => !entries.some(([e]) => e === k)));
    const json = objectOf(entries);
    // self_id must be an id (else 400).
    const badSelfId = entries.some(([k, v]) => k === 'self_id' && !/^(-?[\d.eE+-]+|".*")$/s.test(v.text));
    return { ...json, risky: json.risky || badSelfId };
  });

/** Every kind of body: events, any JSON, text that is not JSON, and bytes that are not UTF-8. */
const body: fc.Arbitrary<{ bytes: Buffer; kind: string; risky: boolean }> = fc.oneof(
  { weight: 6, arbitrary: event.map((e) => ({ bytes: Buffer.from(e.text), kind: 'event', risky: e.risky })) },
  { weight: 2, arbitrary: jsonValue.map((j) => ({ bytes: Buffer.from(j.text), kind: 'json', risky: true })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '',
        ' \n',
        '{',
        'post_type=message',
        '[CQ:face,id=178]',
        '{"post_type":"message"',
        '{post_type:"notice"}',
        '\ufeff{"post_type":"notice"}',
        '{"post_type":"notice","post_type":"message"}',
        'null',
        '"notice"',
        'NaN',
        '{"post_type":"notice"}{"post_type":"notice"}',
      )
      .map((t) => ({ bytes: Buffer.from(t), kind: 'text', risky: true })),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ bytes: Buffer.from(b), kind: 'bytes', risky: true })) },
  // Invalid UTF-8 inside a string of an otherwise valid event (overlong, lone surrogate, truncated sequences).
  {
    weight: 2,
    arbitrary: fc
      .tuple(event, fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xc0, 0xaf]))
      .map(([e, bad]) => ({
        bytes: Buffer.concat([Buffer.from(`{"_bad_utf8":"`), Buffer.from(bad), Buffer.from(`",${e.text.slice(1)}`)]),
        kind: 'event',
        risky: e.risky,
      })),
  },
);

// ---------------------------------------------------------------- generated headers

/** Header values node:http can send at all (it refuses control characters outright). */
const sendable = (v: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v);
const selfIdHeader: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<string[]>([String(SELF_ID)]) },
  { weight: 1, arbitrary: fc.constant<string[]>([]) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        '',
        ' ',
        '\t',
        ' 10001 ',
        '0',
        '-0',
        '-1',
        '1'.repeat(40),
        '18446744073709551617',
        '1e400',
        '__proto__',
        'constructor',
        '#a',
        ':v',
        'a OR b',
        'x'.repeat(8000),
        'ÿ'.repeat(100),
      )
      .map((v): string[] => [v]),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ maxLength: 30 })
      .filter(sendable)
      .map((v): string[] => [v]),
  },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('10001', '', '10002'), fc.constantFrom('10001', '', ' ')).map(([a, b]): string[] => [a, b]) },
);
const SIGNATURES = [
  'valid',
  'upper',
  'missing',
  'empty',
  'blank',
  'no prefix',
  'SHA1= prefix',
  'sha256=',
  'sha1:',
  'truncated',
  'extended',
  'non-hex',
  'other bytes',
  'other secret',
  'twice',
  'valid and wrong',
  'padded',
  'huge',
  'random',
] as const;
type SignatureKind = (typeof SIGNATURES)[number];
function signatureHeader(kind: SignatureKind, bytes: Buffer, random: string): string[] {
  const good = sign(SECRET, bytes);
  switch (kind) {
    case 'valid':
      return [good];
    case 'upper':
      return [`sha1=${good.slice(5).toUpperCase()}`];
    case 'missing':
      return [];
    case 'empty':
      return [''];
    case 'blank':
      return [' \t'];
    case 'no prefix':
      return [good.slice(5)];
    case 'SHA1= prefix':
      return [`SHA1=${good.slice(5)}`];
    case 'sha256=':
      return [`sha256=${good.slice(5)}`];
    case 'sha1:':
      return [`sha1:${good.slice(5)}`];
    case 'truncated':
      return [good.slice(0, -1)];
    case 'extended':
      return [`${good}0`];
    case 'non-hex':
      return [`sha1=${'g'.repeat(40)}`];
    case 'other bytes':
      return [sign(SECRET, Buffer.concat([bytes, Buffer.from(' ')]))];
    case 'other secret':
      return [sign(`${SECRET} `, bytes)];
    case 'twice':
      return [good, good];
    case 'valid and wrong':
      return [good, sign('x', bytes)];
    case 'padded':
      return [`  ${good}  `];
    case 'huge':
      return [`sha1=${'a'.repeat(8000)}`];
    case 'random':
      return [random];
  }
}

/** A header sent more than once, as API Gateway hands it to the function: its values joined with a comma. */
const asReceived = (values: string[]): string => values.join(',');

/**
 * What the header checks alone must answer (docs/onebot.md, "Checks, in order"), or undefined
 * when they pass and the body decides.
 */
function headerVerdict(selfIds: string[], signatures: string[], withSecret: boolean, bytes: Buffer): number | undefined {
  if (!asReceived(selfIds).trim()) return 400;
  if (!withSecret) return undefined;
  const signature = asReceived(signatures).trim();
  if (!signature) return 401;
  // The prefix is exact (as NoneBot compares it), the hex of either case.
  return signature.startsWith('sha1=') && signature.toLowerCase() === sign(SECRET, bytes) ? undefined : 403;
}

// ---------------------------------------------------------------- checks

function expectSafe(r: Answer, what: string): void {
  if (r.status >= 500 || LEAKS.test(r.text)) throw new Error(`${what} -> ${r.status} ${r.text.slice(0, 400)}`);
  if (r.status >= 400) expect(r.body).toMatchObject({ status: 'error', data: { error: expect.any(String) } });
  else expect(r.status).toBe(200);
}

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const eventItems = (snapshot: Item[], id: string) => snapshot.filter((i) => String(i.pk).startsWith('onebot_event#') && i.sk === id);

/**
 * A JSON value in a form that compares equal when DynamoDB holds the same thing: numbers by
 * decimal value (DynamoDB keeps 1.50 as 1.5, -0 as 0), keys in order, strings well formed (the
 * SDK sends UTF-8, so a lone surrogate is stored as U+FFFD).
 */
function canonical(value: unknown): unknown {
  const wellFormed = (s: string) => (s as string & { toWellFormed(): string }).toWellFormed();
  if (typeof value === 'number' || value instanceof NumberValue) {
    const d = parseDecimal(String(value));
    return d && d.sign !== 0 ? `n:${d.sign < 0 ? '-' : ''}0.${d.digits}e${d.exponent}` : 'n:0';
  }
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.keys(value)
      .sort()
      .map((k) => [wellFormed(k), canonical((value as Record<string, unknown>)[k])]);
  }
  return value;
}

/**
 * Sends one delivery and holds it to the properties: safe answer; refused: table unchanged;
 * accepted: one record whose event is the body, and the same bytes on another route after the
 * 60 s window are that event, found again whatever the route: answered {} (a refusal the same),
 * nothing changed. A first answered in time has no re-send (onebot-resends.test.ts).
 */
async function deliverChecked(route: string, bytes: Buffer, headers: Array<[string, string]>, resendRoute: string): Promise<Answer> {
  const what = `POST ${route} ${JSON.stringify(headers).slice(0, 200)} ${bytes.toString('utf8').slice(0, 300)}`;
  const before = await table();
  const r = await send(route, bytes, headers);
  expectSafe(r, what);
  // An event the receiver could not store within its time is kept, answered 200, and stored by the spool's drain.
  await spoolDrained();
  const after = await table();
  if (r.status >= 400) {
    expect(after).toEqual(before);
    return r;
  }
  // The identity takes the bot from the event, else from the X-Self-ID the delivery carried:
  // sent twice, that header reaches the receiver as its values joined.
  const selfIdHeader = asReceived(headers.filter(([name]) => name.toLowerCase() === 'x-self-id').map(([, value]) => value));
  const id = idOf(bytes, selfIdHeader.trim());
  const stored = eventItems(after, id);
  expect(stored).toHaveLength(1);
  // A message or request whose identity was stored before is that event, not a new one.
  if (eventItems(before, id).length === 0) {
    // An event too big for a record is kept whole beside the table, the record pointing at it.
    const ref = stored[0].d.event_ref as { location: string } | undefined;
    const event = ref ? parseExactJson(readFileSync(join(process.env.DATA_DIR!, ref.location.slice('file:'.length)), 'utf8')) : stored[0].d.event;
    expect(canonical(event)).toEqual(canonical(parseExactJson(bytes.toString('utf8'))));
  }
  clock.advance(61_000);
  const again = await send(resendRoute, bytes, headers);
  expect({ status: again.status, text: again.text }).toEqual({ status: r.status, text: r.status === 200 ? '{}' : r.text });
  expect(await table()).toEqual(after);
  return r;
}

const withSecret = (on: boolean) => {
  if (on) process.env.ONEBOT_SECRET = SECRET;
  else delete process.env.ONEBOT_SECRET;
};

let table: ReturnType<typeof watchedTable>;

beforeAll(async () => {
  table = watchedTable();
  delete process.env.ONEBOT_SELF_IDS;
  // Rules make message and request events run the rule code on hostile fields: scoped rules
  // compare hostile ids, the catch-all regex reads every message's text.
  for (const data of [
    { match: 'regex', pattern: '^', reply: 'any' },
    { match: 'keyword', pattern: 'ping', reply: 'pong', group_id: 30003, priority: 5 },
    { match: 'prefix', pattern: '[help]', reply: [{ type: 'text', data: { text: 'help' } }], user_id: 20002, message_type: 'private', priority: 6 },
    { request_type: 'friend', approve: true, remark: 'hi', user_id: 20002 },
    { request_type: 'group', approve: false, reason: 'no', group_id: 30003, match: 'keyword', pattern: '42' },
  ]) {
    const r = await api.post('/api/db/onebot_rule/create', { data });
    expect(r.status).toBe(201);
  }
});

afterAll(() => {
  delete process.env.ONEBOT_SECRET;
});

describe('fixed hostile cases', () => {
  beforeAll(() => withSecret(true));
  const signed = (route: string, text: string | Buffer) => {
    const bytes = Buffer.from(text);
    return deliverChecked(
      route,
      bytes,
      [
        ['x-self-id', String(SELF_ID)],
        ['x-signature', sign(SECRET, bytes)],
      ],
      ROUTES[(ROUTES.indexOf(route as never) + 1) % ROUTES.length],
    );
  };

  // An event nests at most 30 levels (itself included): DynamoDB stores 32 and the event sits in the record's d.
  test.each([25, 26, 29, 30, 65, 100_000])(
    'JSON nested %i levels in an event, its sender and a segment',
    async (levels) => {
      for (const [open, close] of NESTINGS) {
        const nested = deep(levels, open, close);
        for (const [text, depth] of [
          [`{"post_type":"notice","notice_type":"x","time":${levels},"deep":${nested}}`, levels + 1],
          [`{"post_type":"message","message_type":"group","group_id":30003,"time":${levels},"sender":${nested},"message":"ping"}`, levels + 1],
          [
            `{"post_type":"message","message_type":"private","user_id":20002,"time":${levels},"message":[{"type":"text","data":{"text":"hi","x":${nested}}}]}`,
            levels + 4,
          ],
        ] as const) {
          const r = await signed('/', text);
          if (depth <= 30) expect([200]).toContain(r.status);
          else expect({ depth, status: r.status, error: r.body.data.error }).toEqual({ depth, status: 400, error: 'invalid_request' });
        }
        expect((await signed('/onebot/v11/http/', deep(levels, open, close, '{"post_type":"notice"}'))).status).toBe(400);
      }
    },
    60_000,
  );

  test.each(['-0', '1.50', '18446744073709551617', '99999999999999999999999999999999999999', '1E+125', '1e-129', ...UNHOLDABLE_NUMBERS])(
    'the number %s as every id, the time and the interval',
    async (n) => {
      for (const field of ['self_id', 'user_id', 'group_id', 'message_id', 'time']) {
        const base: Record<string, string> = {
          post_type: '"message"',
          message_type: '"group"',
          group_id: '30003',
          user_id: '20002',
          message: '"ping"',
          [field]: n,
        };
        const r = await signed(
          '/',
          `{${Object.entries(base)
            .map(([k, v]) => `"${k}":${v}`)
            .join(',')}}`,
        );
        expect(r.status).toBe(UNHOLDABLE_NUMBERS.includes(n) ? 422 : 200);
      }
      const beat = await signed(
        '/onebot/v11/',
        `{"post_type":"meta_event","meta_event_type":"heartbeat","self_id":10001,"status":{"online":true},"interval":${n}}`,
      );
      expect(beat.status).toBe(UNHOLDABLE_NUMBERS.includes(n) ? 422 : 200);
    },
  );

  test('an X-Self-ID sent twice is the joined text, not the first bot, and the same bytes again find that event', async () => {
    const bytes = Buffer.from('{"post_type":"message","message_type":"private","user_id":20002,"message_id":770001,"message":"hi"}');
    const headers: Array<[string, string]> = [
      ['x-self-id', String(SELF_ID)],
      ['x-self-id', String(SELF_ID)],
      ['x-signature', sign(SECRET, bytes)],
    ];
    expect((await deliverChecked('/', bytes, headers, '/onebot/v11/')).status).toBe(200);
    const after = await table();
    expect(eventItems(after, idOf(bytes, `${SELF_ID},${SELF_ID}`)).map((i) => i.d.self_id)).toEqual([`${SELF_ID},${SELF_ID}`]);
    expect(eventItems(after, idOf(bytes))).toEqual([]);
  });

  // Issue 30, finding 8: stored (the event whole beside the table where a map cannot hold the key), never refused.
  test('prototype keys in the event, the sender and segment data never reach a prototype, and the event is stored', async () => {
    const payload = '{"polluted":true,"prototype":{"polluted":true}}';
    for (const k of ['__proto__', 'constructor', 'prototype']) {
      for (const [where, text] of [
        ['event', `{"post_type":"message","message_type":"group","group_id":30003,"user_id":20002,"${k}":${payload},"message":"ping"}`],
        ['sender', `{"post_type":"message","message_type":"group","group_id":30003,"user_id":20002,"sender":{"${k}":${payload}},"message":"ping"}`],
        [
          'segment data',
          `{"post_type":"message","message_type":"group","group_id":30003,"user_id":20002,"message":[{"type":"text","data":{"${k}":${payload},"text":"ping"}}]}`,
        ],
      ]) {
        // deliverChecked: one record whose event (kept whole for __proto__ and constructor) is the body.
        const r = await signed('/', text);
        expect({ where, body: r.body }).toEqual({ where, body: { reply: 'pong', auto_escape: false, at_sender: false } });
      }
      expect((await signed('/onebot/v11/', `{"${k}":{"post_type":"message"},"message_type":"private"}`)).status).toBe(400);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });
});

test(
  'hostile headers on every route, with and without a secret',
  async () => {
    const small = fc.oneof(event, jsonValue).map((j) => Buffer.from(j.text));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        fc.constantFrom(...ROUTES),
        fc.boolean(),
        selfIdHeader,
        fc.constantFrom(...SIGNATURES),
        fc.string({ maxLength: 50 }).filter(sendable),
        small,
        async (route, resendRoute, secret, selfIds, signatureKind, random, bytes) => {
          withSecret(secret);
          const signatures = signatureHeader(signatureKind, bytes, random);
          const headers: Array<[string, string]> = [
            ...selfIds.map((v): [string, string] => ['x-self-id', v]),
            ...signatures.map((v): [string, string] => ['x-signature', v]),
          ];
          const r = await deliverChecked(route, bytes, headers, resendRoute);
          const verdict = headerVerdict(selfIds, signatures, secret, bytes);
          if (verdict !== undefined) expect(r.status).toBe(verdict);
          else expect([200, 400, 413, 422]).toContain(r.status);
        },
      ),
      fuzzed(80, 21),
    );
  },
  fuzzTimeout(60_000),
);

test(
  'hostile bodies, correctly signed, on every route',
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.constantFrom(...ROUTES), fc.boolean(), body, async (route, resendRoute, secret, { bytes, risky }) => {
        withSecret(secret);
        const r = await deliverChecked(
          route,
          bytes,
          [
            ['x-self-id', String(SELF_ID)],
            ['x-signature', sign(SECRET, bytes)],
          ],
          resendRoute,
        );
        if (!risky) expect(r.status).toBe(200);
      }),
      fuzzed(150, 22),
    );
  },
  fuzzTimeout(60_000),
);

test('the same signed message delivered 20 times at once across the four routes: one record, answered once', async () => {
  withSecret(true);
  const bytes = Buffer.from(
    JSON.stringify({
      time: 1_900_000_000,
      self_id: SELF_ID,
      post_type: 'message',
      message_type: 'group',
      sub_type: 'normal',
      message_id: 7,
      group_id: 30003,
      user_id: 20002,
      message: 'ping',
      raw_message: 'ping',
      font: 0,
    }),
  );
  // From LLOneBot, which never re-sends: identical go-cqhttp deliveries received 1.5 s apart
  // are a re-send to the receiver, and a loaded machine receives twenty "at once" over longer.
  const headers: Array<[string, string]> = [
    ['x-self-id', String(SELF_ID)],
    ['x-signature', sign(SECRET, bytes)],
    ['user-agent', 'node'],
  ];
  const before = await tableSnapshot();
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(ROUTES[i % ROUTES.length], bytes, headers)));
  for (const r of answers) expectSafe(r, 'concurrent delivery');
  await spoolDrained();
  // None can be a re-send of another (LLOneBot never re-sends): one reply, not 20.
  expect(answers.map((r) => `${r.status} ${r.text}`).sort()).toEqual([
    '200 {"reply":"pong","auto_escape":false,"at_sender":false}',
    ...Array(19).fill('200 {}'),
  ]);
  const after = await tableSnapshot();
  expect(eventItems(after, idOf(bytes))).toHaveLength(1);
  expect(after.length - before.length).toBe(1);
});

test('the same first heartbeat of a new bot 20 times at once: 20 events (none can be a re-send), one bot record', async () => {
  withSecret(true);
  const bot = 10077;
  const bytes = Buffer.from(
    JSON.stringify({
      time: 1_900_000_001,
      self_id: bot,
      post_type: 'meta_event',
      meta_event_type: 'heartbeat',
      status: { online: true, good: true },
      interval: 5000,
    }),
  );
  // From LLOneBot, which never re-sends, as above: on a loaded machine 2 of 20 go-cqhttp ones
  // came 1.5 s after an identical one and were rightly taken for its re-sends.
  const headers: Array<[string, string]> = [
    ['x-self-id', String(bot)],
    ['x-signature', sign(SECRET, bytes)],
    ['user-agent', 'node'],
  ];
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(ROUTES[i % ROUTES.length], bytes, headers)));
  expect(answers.map((r) => `${r.status} ${r.text}`)).toEqual(Array(20).fill('200 {}'));
  // On a loaded machine some are kept rather than stored within the receiver's time (answered
  // 200 all the same) and stored by the spool's drain: counted before that, they were missing
  // here and landed in the next test's table (issue 30 finding 10).
  await spoolDrained();
  const after = await tableSnapshot();
  const key = idOf(bytes);
  expect(after.filter((i) => String(i.pk).startsWith('onebot_event#') && String(i.sk).startsWith(key))).toHaveLength(20);
  const bots = after.filter((i) => String(i.pk).startsWith('onebot_bot#') && i.sk === String(bot));
  // Each event updates the bot; a create that loses to a concurrent first falls back to an update.
  expect(bots).toHaveLength(1);
  expect(bots[0]._version).toBe(20);
});

// Last, because every later snapshot would scan these records of hundreds of KB.
describe('huge arrays of message segments', () => {
  test.each([
    [1_000, '{"type":"text","data":{"text":"ping "}}', 200],
    [20_000, 'null', 200],
    [20_000, '{"type":"text","data":{"text":"ping ping ping "}}', 200],
    [50_000, '{"type":"face","data":{"id":"178"}}', 413],
  ])(
    '%i segments like %s: %i',
    async (count, item, status) => {
      withSecret(true);
      const bytes = Buffer.from(
        `{"post_type":"message","message_type":"group","group_id":30003,"time":${count},"message":[${Array(count).fill(item).join(',')}]}`,
      );
      const r = await deliverChecked(
        '/onebot/v11/',
        bytes,
        [
          ['x-self-id', String(SELF_ID)],
          ['x-signature', sign(SECRET, bytes)],
        ],
        '/',
      );
      // 20,000 text segments (~900 KB) exceed DynamoDB's 400 KB item: kept whole; 50,000 faces exceed the 1 MB body.
      expect(r.status).toBe(status);
    },
    60_000,
  );
});
