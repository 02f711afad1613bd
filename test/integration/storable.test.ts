import { useApi } from '../support/api';
import { tableSnapshot } from '../support/table-snapshot';

// Free-form JSON inside a record (a rule's reply segments) meets DynamoDB's and the SDK's
// limits: such data is a 422 naming the path, never a 500, and nothing is stored.
const api = useApi();
const rule = (data: Record<string, unknown>) => ({ data: { match: 'exact', pattern: 'ping', reply: [{ type: 'text', data }] } });

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < levels; i++) value = { x: value };
  return value;
}

// A constructor or __proto__ key is refused sooner, by the request's schema: 400, as anywhere in a request.
test.each([
  ['an empty key', { '': 1 }, 'data.reply.0.data.', 422, 'validation_error'],
  ['a constructor key', { constructor: 'x' }, 'data.reply.0.data.constructor', 400, 'invalid_request'],
  ['a __proto__ key', JSON.parse('{"__proto__": {"a": 1}}'), 'data.reply.0.data.__proto__', 400, 'invalid_request'],
  ["data nested past DynamoDB's 32 levels", nested(40), 'data.reply.0.data', 422, 'validation_error'],
])('%s is %i with its path and stores nothing', async (_, data, path, status, code) => {
  const before = await tableSnapshot();
  const r = await api.post('/api/db/onebot_rule/create', rule(data));
  expect(r.status).toBe(status);
  expect(r.body.data.error).toBe(code);
  expect(r.body.data.details.map((d: { path: string }) => d.path).some((p: string) => p.startsWith(path))).toBe(true);
  expect(await tableSnapshot()).toEqual(before);
});

test('nesting up to the limit is stored and read back whole; one level more is refused', async () => {
  // data > reply > segment > data: the deepest container of nested(27) is 31 levels below the data.
  const r = await api.post('/api/db/onebot_rule/create', rule(nested(27)));
  expect(r.status).toBe(201);
  const got = await api.post('/api/db/onebot_rule/get_one', { filters: { id: r.body.data.id } });
  expect(got.body.data.reply[0].data).toEqual(nested(27));
  expect((await api.post('/api/db/onebot_rule/create', rule(nested(28)))).status).toBe(422);
});
