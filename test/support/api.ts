import type { Server } from 'node:http';
import { parseExactJson, stringifyExactJson } from '../../shared/json/exact-json';
import { startLocalServer } from '../../scripts/local/server';

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed with exact numbers (big ones are NumberValue). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export interface Api {
  url: string;
  /** Sends `body` as JSON (exact numbers), or as-is when it is a string or Buffer. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(path: string, headers?: Record<string, string>): Promise<Reply>;
}

/** Starts the local server (same handlers as Lambda) for one test file; stops it after. */
export function useApi(): Api {
  let server: Server | undefined;
  const api: Api = {
    url: '',
    async request(method, path, body, headers = {}) {
      const payload = body === undefined || typeof body === 'string' || Buffer.isBuffer(body) ? body : stringifyExactJson(body);
      const response = await fetch(`${api.url}${path}`, {
        method,
        headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body: payload as RequestInit['body'],
      });
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? parseExactJson(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    post: (path, body, headers) => api.request('POST', path, body, headers),
    get: (path, headers) => api.request('GET', path, undefined, headers),
  };
  beforeAll(async () => {
    const started = await startLocalServer({ port: 0, host: '127.0.0.1' });
    server = started.server;
    api.url = started.url;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  return api;
}
