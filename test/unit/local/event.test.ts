import { type GatewayRequest, gatewayTime, toEvent } from '../../../scripts/local/event';

// The event the local gateway and the artifact harness hand a function, field by field against
// the HTTP API payload 2.0 reference (docs/decisions.md, "Events as API Gateway builds them").
const request = (headers: Record<string, string>, rawQueryString = ''): GatewayRequest => ({
  method: 'POST',
  rawPath: '/api/db/reaction/create',
  rawQueryString,
  headers: { host: 'localhost:3000', ...headers },
  httpVersion: '1.1',
  sourceIp: '10.0.0.7',
  port: 3000,
  scheme: 'http',
});
const eventOf = (headers: Record<string, string>, body = '', rawQueryString = '') =>
  toEvent(request(headers, rawQueryString), Buffer.from(body), 'POST /api/db/{model_name}/create', {}, Date.UTC(2020, 2, 12, 19, 3, 58, 120));

describe('the body travels as text for text media types and base64 for the rest', () => {
  test.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'text/plain',
    'text/csv;charset=utf-8',
    'application/xml',
    'application/javascript',
  ])('%s is UTF-8 text', (type) => {
    expect(eventOf({ 'content-type': type }, '{"a":"é"}')).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false });
  });

  test.each(['application/octet-stream', 'application/x-www-form-urlencoded', 'image/png', 'application/jsonx'])('%s is base64', (type) => {
    expect(eventOf({ 'content-type': type }, '{"a":"é"}')).toMatchObject({ body: Buffer.from('{"a":"é"}').toString('base64'), isBase64Encoded: true });
  });

  test('a body without a content type is base64', () => {
    expect(eventOf({}, 'x')).toMatchObject({ body: 'eA==', isBase64Encoded: true });
  });

  test('a text body whose bytes are not UTF-8 keeps its exact bytes, base64-encoded', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
    const event = toEvent(request({ 'content-type': 'application/json' }), bytes, '$default');
    expect(event).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
  });

  test('no body is no body', () => {
    expect(eventOf({ 'content-type': 'application/json' })).toMatchObject({ body: undefined, isBase64Encoded: false });
  });
});

test('cookies are their own array, and the Cookie header is gone', () => {
  const event = eventOf({ cookie: 'a=1; b=two;c=3' });
  expect(event.cookies).toEqual(['a=1', 'b=two', 'c=3']);
  expect(event.headers.cookie).toBeUndefined();
  expect(eventOf({}).cookies).toBeUndefined();
});

test('a repeated query parameter is its values joined with a comma', () => {
  const event = eventOf({}, '', 'tag=a&tag=b&x=1&tag=c%2Cd');
  expect(event.queryStringParameters).toEqual({ tag: 'a,b,c,d', x: '1' });
  expect(event.rawQueryString).toBe('tag=a&tag=b&x=1&tag=c%2Cd');
});

test('the x-forwarded headers name the client, the scheme and the port', () => {
  expect(eventOf({}).headers).toMatchObject({ 'x-forwarded-for': '10.0.0.7', 'x-forwarded-proto': 'http', 'x-forwarded-port': '3000' });
  // A proxy's own x-forwarded-for is kept, and the address the gateway saw appended.
  expect(eventOf({ 'x-forwarded-for': '203.0.113.9' }).headers['x-forwarded-for']).toBe('203.0.113.9, 10.0.0.7');
});

test("requestContext.time is the gateway's format, timeEpoch the same instant in ms", () => {
  const { time, timeEpoch } = eventOf({}).requestContext;
  expect(time).toBe('12/Mar/2020:19:03:58 +0000');
  expect(timeEpoch).toBe(Date.UTC(2020, 2, 12, 19, 3, 58, 120));
  expect(gatewayTime(new Date(Date.UTC(2026, 0, 5, 4, 5, 6)))).toBe('05/Jan/2026:04:05:06 +0000');
});
