import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadEnvConfig, type EnvConfig } from '../../src/config/env.ts';
import { loadSettings } from '../../src/config/settings/store.ts';
import type { Category } from '../../src/config/settings/types.ts';
import type { SsoMethod } from '../../src/auth/external/sso-methods.ts';
import type { Database } from '../../src/db/database.ts';
import { buildApp } from '../../src/server/app.ts';
import { composeServices, RESOURCES, settingRegistry } from '../../src/composition/root.ts';
import type { Gate } from '../../src/runs/gates.ts';
import type { Resource } from '../../src/api/resource.ts';
import type { RunKind } from '../../src/runs/run-kind.ts';
import { VERSION } from '../../src/version.ts';
import { ADMIN, freshDatabase } from './database.ts';
import { isolateTemporaryFiles } from './tmp.ts';
import type { RunServices, RunRouteModule } from '../../src/runs/run-services.ts';
import type { RootLog } from '../../src/logging/structured.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

isolateTemporaryFiles();

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
  services: RunServices;
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
  /** Logs in through POST /api/login/ (JSON) and answers a client that sends the session cookie. */
  login(who?: Credentials, options?: SessionOptions): Promise<SessionClient>;
  /**
   * Wakes the background loops woken by events (dispatcher with its task manager and workflow
   * passes, notification sender, scheduler...) one after another, in start order, and resolves once
   * each has ended a round begun after it was woken: what they would do about the state as it is now
   * is done. The way to assert that something does not happen, instead of a fixed sleep.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Sends X-Forwarded-Proto: https with every request (needed when SESSION_COOKIE_SECURE is true). */
  https?: boolean;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
}

export interface SessionRequestOptions {
  body?: unknown;
  payload?: string;
  headers?: Record<string, string>;
  /** X-CSRFToken on writes: the csrftoken cookie by default, a given value, or false for none. */
  csrf?: string | false;
  /** Origin on writes: the first trusted origin by default, a given value, or false for none. */
  origin?: string | false;
}

/** A browser-like client: keeps the cookies it is sent and sends them back, with the CSRF header on writes. */
export interface SessionClient {
  cookies: Map<string, string>;
  /** The answer to the login. */
  loginResponse: Response;
  request(method: string, url: string, options?: SessionRequestOptions): Promise<Response>;
  get(url: string, options?: SessionRequestOptions): Promise<Response>;
  post(url: string, body?: unknown, options?: SessionRequestOptions): Promise<Response>;
  patch(url: string, body?: unknown, options?: SessionRequestOptions): Promise<Response>;
  delete(url: string, options?: SessionRequestOptions): Promise<Response>;
}

/**
 * A browser-like client of `request` that has signed in to nothing yet: it keeps the cookies it is
 * sent, and sends the CSRF header and Origin (`origin` unless a request says otherwise) on writes.
 */
export function cookieSession(
  request: (method: string, url: string, options?: RequestOptions) => Promise<Response>, origin: string | undefined, options: SessionOptions = {},
): Omit<SessionClient, 'loginResponse'> {
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const [name, { value }] of setCookies(res)) {
      if (value === null) cookies.delete(name);
      else cookies.set(name, value);
    }
    return res;
  };
  const send = (method: string, url: string, o: SessionRequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.https) headers['x-forwarded-proto'] = 'https';
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method)) {
      const token = o.csrf === undefined ? cookies.get('csrftoken') : o.csrf;
      if (token) headers['x-csrftoken'] = token;
      const sentOrigin = o.origin === undefined ? origin : o.origin;
      if (sentOrigin) headers.origin = sentOrigin;
    }
    return request(method, url, { as: null, body: o.body, payload: o.payload, headers: { ...headers, ...o.headers } }).then(keep);
  };
  return {
    cookies,
    request: send,
    get: (url, o) => send('GET', url, o),
    post: (url, body, o) => send('POST', url, { ...o, body }),
    patch: (url, body, o) => send('PATCH', url, { ...o, body }),
    delete: (url, o) => send('DELETE', url, o),
  };
}

/** The Set-Cookie headers of a response, as name -> value (null for a cookie being removed). */
export function setCookies(res: Response): Map<string, { value: string | null; attributes: string[] }> {
  const out = new Map<string, { value: string | null; attributes: string[] }>();
  for (const line of [res.headers['set-cookie'] ?? []].flat()) {
    const [pair, ...attributes] = line.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = decodeURIComponent(pair.slice(eq + 1));
    const removed = attributes.some((a) => /^max-age=0$/i.test(a)) || attributes.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now());
    out.set(name, { value: removed ? null : value, attributes });
  }
  return out;
}

export const basicAuth = (c: Credentials) => `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;

export interface TestAppOptions {
  /**
   * Directories git projects may use local repositories from, besides the demo repository's:
   * by default this process's temporary directory, where tests make their repositories (the
   * projects root inside it stays refused). PROJECT_LOCAL_SOURCE_DIRS adds to these.
   */
  localSourceDirs?: string[];
  /** The launch gates (none by default, as the composition root has today). */
  gates?: readonly Gate[];
  /** Resources, run kinds and endpoints a test adds as if the composition root listed them (see composeServices, buildApp). */
  extraResources?: readonly Resource[];
  extraRunKinds?: readonly RunKind[];
  extraRoutes?: readonly RunRouteModule[];
  /** Setting categories after SETTING_CATEGORIES (see settingRegistry). */
  extraSettingCategories?: readonly Category[];
  /** Sign-in methods after SSO_METHODS (see composeServices). */
  extraSsoMethods?: readonly SsoMethod[];
  /** false: no background loops (heartbeat, dispatcher), for benchmarks that drive a part alone. */
  dispatcher?: boolean;
  /** The service log (createRootLog over a stream the test reads), for the app and the service logger; none by default. */
  log?: RootLog;
  /** The compact access line per request (SVC_ACCESS_LOG), into `log`. */
  accessLog?: boolean;
}

/** A service on a fresh database of its own, driven through HTTP requests injected into Fastify. */
export async function createTestApp(envOverrides: Record<string, string> = {}, appOptions: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-test-'));
  const env = await loadEnvConfig({
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: ADMIN.password,
    SVC_NODE_NAME: 'test-node',
    // Injected requests are plain HTTP; tests of secure cookies turn these on explicitly.
    SESSION_COOKIE_SECURE: 'false',
    CSRF_COOKIE_SECURE: 'false',
    ...(process.env.POSTGRES_HOST && {
      POSTGRES_HOST: process.env.POSTGRES_HOST,
      POSTGRES_PASSWORD: process.env.POSTGRES_PASSWORD ?? 'unused',
      SVC_SECRET_KEY: 'test-secret-key',
      SVC_BROADCAST_WEBSOCKET_SECRET: 'test-broadcast-secret',
      SVC_CSRF_TRUSTED_ORIGINS: 'http://localhost',
    }),
    ...envOverrides,
  });
  // Tests keep their local repositories in temporary directories.
  env.localSourceDirs.push(...(appOptions.localSourceDirs ?? [tmpdir()]));
  const db = await freshDatabase(env);
  const settings = await loadSettings(db, env, settingRegistry(appOptions.extraSettingCategories), [...RESOURCES, ...(appOptions.extraResources ?? [])]);
  const [{ uuid }] = await db.query<AnyRow>('SELECT uuid FROM installation');
  const services: RunServices = composeServices(
    { db, settings, env, version: VERSION, installUuid: uuid },
    { gates: appOptions.gates, extraResources: appOptions.extraResources, extraRunKinds: appOptions.extraRunKinds, extraSsoMethods: appOptions.extraSsoMethods, log: appOptions.log },
  );
  let settleLoops = async () => {};
  const app = await buildApp(services, {
    extraRoutes: appOptions.extraRoutes,
    dispatcher: appOptions.dispatcher,
    loggerInstance: appOptions.log,
    accessLog: appOptions.accessLog,
    onLoopsStarted: (settle) => { settleLoops = settle; },
  });

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
    async login(who = ADMIN, options = {}) {
      const client = cookieSession(request, env.csrfTrustedOrigins[0], options);
      const send = client.request;
      const loginResponse = await send('POST', '/api/login/', { body: { username: who.username, password: who.password } });
      if (loginResponse.status !== 200) throw new Error(`login as ${who.username}: ${loginResponse.status} ${loginResponse.text}`);
      return { ...client, loginResponse };
    },
    settle: () => settleLoops(),
    async close() {
      await app.close();
      await db.close();
    },
  };
  return testApp;
}

export {
  grant, grantTeam, newHost, newInventory, newJobTemplate, newOrg, newProject, newSchedule, newTeam, newUser, newWorkflow, roleMatrix, roleOf, unique,
  type Ref, type RoleObject, type User, type UserOptions,
} from './factories.ts';
