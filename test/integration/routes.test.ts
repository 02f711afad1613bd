import { useApi } from '../support/api';
import { storedItems } from '../support/stored';

/**
 * Routing as the deployed HTTP API does it: exact route keys, `$default` for everything else.
 * This suite runs on the local server and, in the artifact project, on the bundles in cdk.out.
 */
const api = useApi();
const onebotEvents = async () => (await storedItems({ name: 'onebot_event', shards: 8 })).length;

describe('routes as API Gateway selects them', () => {
  test.each(['/', '/onebot/v11/', '/onebot/v11/http', '/onebot/v11/http/'])('POST %s reaches the OneBot receiver and stores the event', async (path) => {
    const before = await onebotEvents();
    const event = {
      time: 1767225600,
      self_id: 10001,
      post_type: 'notice',
      notice_type: 'group_increase',
      sub_type: 'approve',
      group_id: 1,
      user_id: path.length,
      operator_id: 2,
    };
    const r = await api.post(path, JSON.stringify({ ...event, path }), { 'x-self-id': '10001' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
    expect(await onebotEvents()).toBe(before + 1);
  });

  test.each([
    ['GET', '/api/db/models', 200],
    ['GET', '/api/db/health', 200],
    ['GET', '/openapi.json', 200],
    ['GET', '/docs', 200],
    ['GET', '/docs/swagger-ui.css', 200],
    ['POST', '/api/db/reaction/count', 200],
    ['POST', '/api/db/reaction/list', 200],
    ['POST', '/api/db/reaction/get_one', 404],
    ['POST', '/api/db/reaction/aggregate', 422],
  ])('%s %s is served by its function (%i)', async (method, path, status) => {
    const r = await api.request(
      method,
      path,
      method === 'POST' ? { filters: { id: 'none' }, ...(path.endsWith('/aggregate') ? { name: 'none' } : {}) } : undefined,
    );
    expect(r.status).toBe(status);
    if (status === 404) expect(r.body.data.error).toBe('not_found');
    // reaction declares no aggregate: the function's own answer, naming the name.
    if (status === 422) expect(r.body.data).toMatchObject({ error: 'validation_error', path: 'name' });
  });

  test.each([
    ['GET', '/onebot/v11/', 405, 'method_not_allowed'],
    ['POST', '/api/db/models', 405, 'method_not_allowed'],
    ['POST', '/api/db/reaction/create/', 404, 'route_not_found'],
    ['POST', '/api/db//create', 404, 'route_not_found'],
    ['POST', '/onebot/v11', 404, 'route_not_found'],
    ['GET', '/API/DB/MODELS', 404, 'route_not_found'],
  ])('%s %s matches no route key: $default answers %i %s', async (method, path, status, code) => {
    const r = await api.request(method, path, method === 'POST' ? { data: { user_id: 1, content: 'x' } } : undefined);
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ status: 'error', data: { error: code } });
  });
});

test('GET / sends a person to /docs; POST / stays the OneBot receiver', async () => {
  const r = await fetch(`${api.url}/`, { redirect: 'manual' });
  expect(r.status).toBe(302);
  expect(r.headers.get('location')).toBe('/docs');
  const docs = await fetch(`${api.url}/`);
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain('swagger-ui');
});

test('a chunked body over 10 MB is refused with 413 while it streams in', async () => {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  let sent = 0;
  const body = new ReadableStream({
    pull(controller) {
      sent += 1;
      if (sent > 40) controller.close();
      else controller.enqueue(chunk);
    },
  });
  const r = await fetch(`${api.url}/api/db/reaction/create`, { method: 'POST', body, duplex: 'half' } as RequestInit);
  expect(r.status).toBe(413);
  expect(await r.json()).toEqual({ message: 'Request Entity Too Large' });
});

test('a declared Content-Length over 10 MB is refused before any byte of the body is read', async () => {
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${api.url}/api/db/reaction/create`, { method: 'POST', headers: { 'content-length': String(300 * 1024 * 1024) } }, (res) =>
      resolve(res.statusCode ?? 0),
    );
    req.on('error', reject);
    req.write('{');
  });
  expect(status).toBe(413);
});
