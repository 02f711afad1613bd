import type { Server } from 'node:http';
import { parseExactJson, stringifyExactJson } from '../../shared/json/exact-json';
import { FUNCTION_DESCRIPTORS } from '../../shared/manifest/functions';
import { startLocalServer } from '../../scripts/local/server';
import { startArtifactApi, type ArtifactApi } from './artifact/api';

/**
 * The artifact project (jest.config.js) runs the same suites against the bundles in cdk.out.
 * There, as in Lambda, nothing is open without a token: where a suite sets no API_TOKENS of its
 * own, the secret holds this admin token and every request carries it.
 */
export const ARTIFACT_TOKEN = 'artifact-admin-token';
/** Whether this run serves the suites from the bundles in cdk.out (the artifact project). */
export const againstArtifacts = () => process.env.RG_TEST_TARGET === 'artifact';
let artifact: ArtifactApi | undefined;

/**
 * A test of behaviour only the local server has (loopback open mode, settings a test puts in
 * the environment); against cdk.out its deployed counterpart is tested in test/artifact.
 */
export const localOnly: jest.It = againstArtifacts() ? test.skip : test;

/** The running artifact harness of this test file, when the suite runs against cdk.out. */
export const artifactApi = (): ArtifactApi | undefined => artifact;

/** Secret values as the stack provides them: the token table, and a generated cursor key. */
const ARTIFACT_SECRETS: Record<string, string> = {
  API_TOKENS: JSON.stringify({ [ARTIFACT_TOKEN]: ['read', 'write', 'admin'] }),
  CURSOR_SECRET: 'artifact-generated-cursor-key',
};
const secretOf = (name: string) => process.env[name] ?? ARTIFACT_SECRETS[name];

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
  /**
   * Lets every function of this file's service run at least `seconds` before its timeout, for
   * work whose time a test has measured on this machine as it is now (test/support/machine-speed.ts),
   * and each of its DynamoDB calls as long (TEST_CALL_TIMEOUT_MS; the cutoff before the timeout
   * still bounds them); never shortens the configured timeouts.
   */
  giveTime(seconds: number): void;
}

/**
 * Starts the local server (same handlers as Lambda) for one test file; stops it after. A file that
 * adds the test models (`jest.mock` of shared/models/catalog.ts with test/support/test-catalog.ts)
 * says `testModels`, and is then served through the bundles built with them.
 */
export function useApi(options: { testModels?: boolean } = {}): Api {
  let server: Server | undefined;
  let given = 0;
  const api: Api = {
    url: '',
    async request(method, path, body, headers = {}) {
      const payload = body === undefined || typeof body === 'string' || Buffer.isBuffer(body) ? body : stringifyExactJson(body);
      if (againstArtifacts() && process.env.API_TOKENS === undefined) headers = { authorization: `Bearer ${ARTIFACT_TOKEN}`, ...headers };
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
    giveTime: (seconds) => {
      given = seconds;
      // The in-process server's functions read it per call; artifact sandboxes get it per invocation.
      process.env.TEST_CALL_TIMEOUT_MS = String(seconds * 1000);
    },
  };
  beforeAll(async () => {
    if (againstArtifacts()) {
      artifact = await startArtifactApi({
        engine: process.env.DYNAMODB_ENDPOINT!,
        table: process.env.TABLE_NAME!,
        secrets: secretOf,
        timeoutSeconds: (configured) => Math.max(configured, given),
        invocationEnvironment: (): Record<string, string> => (given > 0 ? { TEST_CALL_TIMEOUT_MS: String(given * 1000) } : {}),
        testModels: options.testModels,
      });
      api.url = artifact.url;
      return;
    }
    const started = await startLocalServer({
      port: 0,
      host: '127.0.0.1',
      timeoutSeconds: (name) => Math.max(FUNCTION_DESCRIPTORS[name].lambda.timeoutSeconds, given),
    });
    server = started.server;
    api.url = started.url;
  });
  afterAll(async () => {
    delete process.env.TEST_CALL_TIMEOUT_MS;
    await artifact?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });
  return api;
}
