import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { lambdaContext, toEvent } from '../../../../scripts/local/event';
import { readBody } from '../../../../shared/http/middleware/read-body';
import type { HttpRequest } from '../../../../shared/contract';
import { LIMITS } from '../../../../shared/limits';
import { FUNCTION_DESCRIPTORS } from '../../../../shared/manifest/functions';

// The body reader alone: what an operation receives for each kind of body, and the envelope
// code of each body it refuses. Without a content type the gateway sends the body base64-encoded (toEvent does too).
async function read(body: string | Buffer, { parseBody = true, base64 = true } = {}) {
  const bytes = Buffer.from(body);
  const event = toEvent(
    {
      method: 'POST',
      rawPath: '/api/db/reaction/list',
      rawQueryString: '',
      headers: { 'x-trace': 't' },
      httpVersion: '1.1',
      sourceIp: '127.0.0.1',
      port: 3000,
      scheme: 'http',
    },
    bytes,
    'POST /api/db/{model_name}/list',
  );
  if (!base64) Object.assign(event, { body: typeof body === 'string' ? body : bytes.toString('utf8'), isBase64Encoded: false });
  const context = lambdaContext('list', 'r1', Date.now() + 5_000);
  const request = { event, context, response: undefined, error: undefined, internal: {} } as unknown as HttpRequest;
  // list takes a JSON body; the OneBot receiver reads its raw bytes itself.
  await readBody(parseBody ? FUNCTION_DESCRIPTORS.list : FUNCTION_DESCRIPTORS.onebot).before(request);
  return request.context.apiRequest!;
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'read',
    (error: { code?: string }) => error.code,
  );

test("JSON arrives parsed, with the raw bytes, the headers and the function's descriptor beside it", async () => {
  const request = await read('{"filters":{"content":"é"},"limit":2}');
  expect(request.body).toEqual({ filters: { content: 'é' }, limit: 2 });
  expect(request.rawBody.toString('utf8')).toBe('{"filters":{"content":"é"},"limit":2}');
  expect(request.headers).toEqual({ 'x-trace': 't', 'x-forwarded-for': '127.0.0.1', 'x-forwarded-proto': 'http', 'x-forwarded-port': '3000' });
  expect(request.descriptor).toBe(FUNCTION_DESCRIPTORS.list);
});

test('a body that was not base64-encoded is read as UTF-8 text', async () => {
  expect((await read('{"a":1}', { base64: false })).body).toEqual({ a: 1 });
});

test('base64-encoded bytes that are not UTF-8 are malformed_json, never replaced with U+FFFD', async () => {
  for (const bytes of [[0xff], [0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0x80]]) {
    const body = Buffer.concat([Buffer.from('{"id":"u8-'), Buffer.from(bytes), Buffer.from('"}')]);
    await expect(read(body)).rejects.toMatchObject({ code: 'malformed_json', message: 'The body is not valid UTF-8' });
  }
  expect((await read(Buffer.from('{"id":"u8-\u00ff\ufffd"}'))).body).toEqual({ id: 'u8-ÿ\ufffd' });
});

test('a text body (isBase64Encoded false) was decoded by API Gateway and is taken as it came', async () => {
  // Not re-encoded on the way: an unpaired surrogate in the text reaches the parser (and then the
  // record operation's own check) instead of turning into U+FFFD here.
  expect((await read('{"a":"x\ud800"}', { base64: false })).body).toEqual({ a: 'x\ud800' });
});

test('numbers keep every digit: an integer past 2^53 and a long fraction are not rounded', async () => {
  const { body } = await read('{"big":9007199254740993,"fraction":0.1000000000000000055511151231257827,"small":3}');
  const { big, fraction, small } = body as Record<string, unknown>;
  expect(big).toBeInstanceOf(NumberValue);
  expect(String(big)).toBe('9007199254740993');
  expect(String(fraction)).toBe('0.1000000000000000055511151231257827');
  expect(small).toBe(3);
});

test('an empty or blank body is {}', async () => {
  expect((await read('')).body).toEqual({});
  expect((await read(' \n\t')).body).toEqual({});
});

test('refused bodies: malformed JSON, nesting past the limit, more bytes than the limit', async () => {
  expect(await codeOf(read('{"a":'))).toBe('malformed_json');
  expect(await codeOf(read('{"a":1,"a":2}'))).toBe('malformed_json');
  const depth = LIMITS.maxJsonDepth;
  expect(await codeOf(read(`${'['.repeat(depth)}${']'.repeat(depth)}`))).toBe('read');
  expect(await codeOf(read(`${'['.repeat(depth + 1)}${']'.repeat(depth + 1)}`))).toBe('invalid_request');
  const filler = (n: number) => `{"a":"${'x'.repeat(n - 8)}"}`;
  expect(await codeOf(read(filler(LIMITS.maxBodyBytes)))).toBe('read');
  expect(await codeOf(read(filler(LIMITS.maxBodyBytes + 1)))).toBe('payload_too_large');
});

test('without parsing (the OneBot receiver) the body is left to the operation, bytes intact, the size limit still applied', async () => {
  const bytes = Buffer.from([0x7b, 0xff, 0x00, 0x7d]);
  const request = await read(bytes, { parseBody: false });
  expect(request.body).toEqual({});
  expect(request.rawBody.equals(bytes)).toBe(true);
  expect(await codeOf(read(Buffer.alloc(LIMITS.maxBodyBytes + 1), { parseBody: false }))).toBe('payload_too_large');
});
