import fc from 'fast-check';
import type { Change } from '../../../shared/feed/change';
import type { BusEntry } from '../../../shared/feed/consume';
import { publish, PUT_EVENTS } from '../../../shared/feed/publish';
import { EventBridgeStandIn } from '../../support/eventbridge-standin';

// The publisher against a stand-in that speaks PutEvents over HTTP and refuses entries at random,
// one by one (an ErrorCode in the answer) and whole calls (as IAM refuses a bus it does not
// grant): every change it took is on its bus exactly once, as the change, and the publisher
// answers exactly the changes that were refused, so their stream records are sent again.
const bridge = new EventBridgeStandIn();
const STACK_BUS = 'Recordgate-feed';

beforeAll(async () => {
  await bridge.listen();
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = bridge.url;
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
});
afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_EVENTBRIDGE;
  await bridge.close();
});
beforeEach(() => {
  process.env.FEED_BUS_NAME = STACK_BUS;
  bridge.events.length = 0;
  bridge.refused.length = 0;
  bridge.refuse = () => undefined;
  bridge.refuseCall = () => false;
});

const KB = 1024;
/** Sizes around the limits: most changes small, some filling a call alone, some over one event's limit. */
const textOf = fc.oneof({ arbitrary: fc.integer({ min: 0, max: 300 }), weight: 6 }, fc.integer({ min: 60 * KB, max: 140 * KB }), fc.constant(300 * KB));
let serial = 0;
const change = fc
  .record({ op: fc.constantFrom('create', 'update', 'delete' as const), size: textOf, model: fc.constantFrom('order', 'reaction') })
  .map(({ op, size, model }): Change => {
    const image = { id: `r${serial}`, note: 'é'.repeat(Math.floor(size / 2)), _version: 2 };
    serial++;
    return {
      change_id: `c${serial}`,
      model,
      id: `r${serial}`,
      op,
      version: 2,
      time: new Date(1_800_000_000_000 + serial * 1000).toISOString(),
      ...(op !== 'create' ? { before: image } : {}),
      ...(op !== 'delete' ? { after: image } : {}),
    };
  });
const entry = fc
  .record({ bus: fc.constantFrom('default', 'orders', 'forbidden'), change })
  .map((e): BusEntry => ({ id: `to-${e.bus}/${e.change.change_id}`, subscription: `to-${e.bus}`, ...e }));

test('each change taken is on its bus once, as the change; exactly the refused ones are answered, and no call breaks a limit', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(entry, { minLength: 1, maxLength: 35 }),
      fc.array(fc.constantFrom('InternalFailure', 'ThrottlingException', undefined)),
      async (entries, codes) => {
        bridge.events.length = 0;
        bridge.refused.length = 0;
        let n = 0;
        bridge.refuse = () => codes[n++ % Math.max(codes.length, 1)];
        bridge.refuseCall = (events) => events.some((e) => e.bus === 'forbidden');

        const failed = await publish(entries);

        expect(bridge.overLimit).toEqual([]);
        const refused = new Set(bridge.refused.map((e) => (e.detail as Change).change_id));
        expect(new Set(failed)).toEqual(new Set(entries.filter((e) => refused.has(e.change.change_id)).map((e) => e.id)));
        const taken = entries.filter((e) => !refused.has(e.change.change_id));
        expect(bridge.events).toHaveLength(taken.length);
        for (const { bus, change: c } of taken) {
          const event = bridge.events.find((e) => (e.detail as Change).change_id === c.change_id)!;
          const whole = Buffer.byteLength(JSON.stringify(c)) + 14 + 'recordgate'.length + `${c.model}.${c.op}`.length <= PUT_EVENTS.maxBytes;
          const { before: _b, after: _a, ...withoutImages } = c;
          expect(event).toEqual({
            bus: bus === 'default' ? STACK_BUS : bus,
            source: 'recordgate',
            detailType: `${c.model}.${c.op}`,
            detail: whole ? c : { ...withoutImages, images_omitted: true },
            time: Date.parse(c.time) / 1000,
          });
        }
      },
    ),
    { numRuns: 30 },
  );
});

test('a call fills up to 10 entries: 25 small changes are 3 calls', async () => {
  const entries = fc.sample(
    entry.filter((e) => e.bus === 'orders' && JSON.stringify(e.change).length < 2 * KB),
    25,
  );
  const before = bridge.calls;
  expect(await publish(entries)).toEqual([]);
  expect(bridge.calls - before).toBe(3);
});

test('with no stack bus (FEED_BUS_NAME unset), a change for "default" fails and is sent nowhere, never to the account\'s default bus', async () => {
  delete process.env.FEED_BUS_NAME;
  const [toDefault, toNamed] = fc.sample(
    change.filter((c) => JSON.stringify(c).length < 2 * KB),
    2,
  );
  const failed = await publish([
    { id: 'a/1', subscription: 'a', bus: 'default', change: toDefault },
    { id: 'b/2', subscription: 'b', bus: 'orders', change: toNamed },
  ]);
  expect(failed).toEqual(['a/1']);
  expect(bridge.events.map((e) => [e.bus, (e.detail as Change).change_id])).toEqual([['orders', toNamed.change_id]]);
});
