import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../src/api/context.ts';
import { loadEnvConfig, type EnvConfig } from '../../src/config/env.ts';
import { loadSettings } from '../../src/config/settings/store.ts';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/server/app.ts';
import { configureActivityStream } from '../../src/activity/record.ts';
import { VERSION } from '../../src/version.ts';
import { ADMIN, freshDatabase } from './database.ts';

export { ADMIN };

export interface Credentials {
  username: string;
  password: string;
}

export interface Response {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Who sends the request: credentials, or null for anonymous. Defaults to the admin. */
  as?: Credentials | null;
  headers?: Record<string, string>;
  /** Raw payload instead of JSON. */
  payload?: string;
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  db: Database;
  env: EnvConfig;
  request(method: string, url: string, options?: RequestOptions): Promise<Response>;
  get(url: string, options?: RequestOptions): Promise<Response>;
  post(url: string, body?: unknown, options?: RequestOptions): Promise<Response>;
  patch(url: string, body?: unknown, options?: RequestOptions): Promise<Response>;
  put(url: string, body?: unknown, options?: RequestOptions): Promise<Response>;
  delete(url: string, options?: RequestOptions): Promise<Response>;
  /** Creates a user through the API and answers its id and credentials. */
  createUser(username: string, fields?: Record<string, unknown>): Promise<Credentials & { id: number }>;
  close(): Promise<void>;
}

export const basicAuth = (c: Credentials) => `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;

/** A service on a fresh database of its own, driven through HTTP requests injected into Fastify. */
export async function createTestApp(envOverrides: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-test-'));
  const env = await loadEnvConfig({
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: ADMIN.password,
    SVC_NODE_NAME: 'test-node',
    ...(process.env.POSTGRES_HOST && {
      POSTGRES_HOST: process.env.POSTGRES_HOST,
      POSTGRES_PASSWORD: process.env.POSTGRES_PASSWORD ?? 'unused',
      SVC_SECRET_KEY: 'test-secret-key',
      SVC_BROADCAST_WEBSOCKET_SECRET: 'test-broadcast-secret',
      SVC_CSRF_TRUSTED_ORIGINS: 'http://localhost',
    }),
    ...envOverrides,
  });
  const db = await freshDatabase(env);
  const settings = await loadSettings(db, env);
  const [{ uuid }] = await db.query('SELECT uuid FROM installation');
  const services: Services = { db, settings, env, version: VERSION, installUuid: uuid };
  configureActivityStream(services);
  const app = await buildApp(services);

  const request = async (method: string, url: string, options: RequestOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = { ...options.headers };
    const who = options.as === undefined ? ADMIN : options.as;
    if (who) headers.authorization = basicAuth(who);
    let payload = options.payload;
    if (payload === undefined && options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method: method as 'GET', url, headers, payload });
    let body: unknown = res.body;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body, headers: res.headers as Response['headers'], text: res.body };
  };

  const testApp: TestApp = {
    app,
    services,
    db,
    env,
    request,
    get: (url, o) => request('GET', url, o),
    post: (url, body, o) => request('POST', url, { ...o, body }),
    patch: (url, body, o) => request('PATCH', url, { ...o, body }),
    put: (url, body, o) => request('PUT', url, { ...o, body }),
    delete: (url, o) => request('DELETE', url, o),
    async createUser(username, fields = {}) {
      const password = `${username}-pw`;
      const res = await request('POST', '/api/v2/users/', { body: { username, password, ...fields } });
      if (res.status !== 201) throw new Error(`creating user ${username}: ${res.status} ${res.text}`);
      return { id: res.body.id, username, password };
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
  return testApp;
}
