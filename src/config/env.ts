import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';

export type NodeType = 'hybrid' | 'control' | 'execution';

/** Everything the service reads from its environment, resolved once at start. */
export interface EnvConfig {
  mode: 'embedded' | 'server';
  dataDir: string;
  postgres: { host: string; port: number; user: string; password: string; database: string } | null;
  secretKey: string;
  broadcastWebsocketSecret: string;
  adminUser: string;
  /** Null in embedded mode when unset: a password is generated at first start. */
  adminPassword: string | null;
  csrfTrustedOrigins: string[];
  allowedHosts: string[];
  nodeName: string;
  nodeType: NodeType;
  httpPort: number;
  httpsPort: number;
  listenAddress: string;
  sessionCookieSecure: boolean;
  csrfCookieSecure: boolean;
  tlsCert: string | null;
  tlsKey: string | null;
  settingsFile: string | null;
  /** Addresses whose X-Forwarded-* headers are believed (proxy-addr syntax: IPs, CIDRs, loopback). */
  trustedProxies: string[];
  /** Where project checkouts live. */
  projectsRoot: string;
  /** Directories the service fills itself and always allows as local sources besides PROJECT_LOCAL_SOURCE_DIRS (the demo repository's). */
  localSourceDirs: string[];
  /** Create the demo project, inventory, credential and job template at first start (SVC_CREATE_DEMO_DATA). */
  createDemoData: boolean;
  /** Replaces the scheme and host of the social sign-in providers' endpoints (SVC_SOCIAL_AUTH_PROVIDER_URL): a stand-in or a mirror. */
  socialAuthProviderUrl: string | null;
  /** Replaces the scheme and host of the cloud secret stores' fixed endpoints (SVC_SECRET_STORE_URL): a stand-in or a mirror. */
  secretStoreUrl: string | null;
  /** The assistant service (docs/assistant.md). */
  assistant: AssistantProcessConfig;
}

export interface AssistantProcessConfig {
  /** `drover serve` starts the assistant as a child process (SVC_ASSISTANT_ENABLED, unless SVC_ASSISTANT_URL names one elsewhere). */
  enabled: boolean;
  /** Where `drover assistant` listens (SVC_ASSISTANT_HOST, SVC_ASSISTANT_PORT). */
  host: string;
  port: number;
  /** The assistant running elsewhere (SVC_ASSISTANT_URL): no child is started, /assistant/ goes there. */
  externalUrl: string | null;
  /**
   * Where the main service sends /assistant/ now: externalUrl, or the child's address once it
   * listens (set by its supervisor); null while there is none.
   */
  url: string | null;
}

/** What a process of each role needs: `drover assistant` needs neither the main service's keys nor its admin. */
export type ProcessRole = 'service' | 'assistant';

export class ConfigError extends Error {}

const REQUIRED_IN_SERVER_MODE = [
  'POSTGRES_PASSWORD',
  'SVC_SECRET_KEY',
  'SVC_BROADCAST_WEBSOCKET_SECRET',
  'SVC_ADMIN_PASSWORD',
  'SVC_CSRF_TRUSTED_ORIGINS',
] as const;

const NODE_TYPES: readonly NodeType[] = ['hybrid', 'control', 'execution'];

type Env = Record<string, string | undefined>;

function present(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value;
}

function list(value: string | undefined, fallback: string[]): string[] {
  if (value === undefined) return fallback;
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

function parseBoolean(name: string, value: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (value === undefined) return fallback;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  problems.push(`${name} must be true or false, got "${value}"`);
  return fallback;
}

function parsePort(name: string, value: string | undefined, fallback: number, problems: string[]): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    problems.push(`${name} must be a port number (0-65535), got "${value}"`);
    return fallback;
  }
  return n;
}

/**
 * Reads the environment. Server mode (POSTGRES_HOST set) needs every required variable and
 * fails with one message naming all that are missing; embedded mode fills in what it can.
 */
export async function loadEnvConfig(env: Env = process.env, role: ProcessRole = 'service'): Promise<EnvConfig> {
  const mode = present(env, 'POSTGRES_HOST') ? 'server' : 'embedded';
  const problems: string[] = [];
  if (mode === 'server') {
    const required = role === 'service' ? REQUIRED_IN_SERVER_MODE : (['POSTGRES_PASSWORD'] as const);
    const missing = required.filter((name) => !present(env, name));
    if (missing.length) problems.push(`missing required environment variables: ${missing.join(', ')}`);
  }
  const nodeType = (present(env, 'SVC_NODE_TYPE') ?? 'hybrid') as NodeType;
  if (!NODE_TYPES.includes(nodeType)) problems.push(`SVC_NODE_TYPE must be one of ${NODE_TYPES.join(', ')}, got "${nodeType}"`);
  const tlsCert = present(env, 'SVC_TLS_CERT') ?? null;
  const tlsKey = present(env, 'SVC_TLS_KEY') ?? null;
  if ((tlsCert === null) !== (tlsKey === null)) problems.push('SVC_TLS_CERT and SVC_TLS_KEY must be given together');

  const embeddedPorts = mode === 'embedded';
  const config: EnvConfig = {
    mode,
    dataDir: path.resolve(present(env, 'SVC_DATA_DIR') ?? './data'),
    postgres:
      mode === 'server'
        ? {
            host: env.POSTGRES_HOST!,
            port: parsePort('POSTGRES_PORT', present(env, 'POSTGRES_PORT'), 5432, problems),
            user: present(env, 'POSTGRES_USER') ?? 'drover',
            password: env.POSTGRES_PASSWORD ?? '',
            database: present(env, 'POSTGRES_DB') ?? 'drover',
          }
        : null,
    secretKey: present(env, 'SVC_SECRET_KEY') ?? '',
    broadcastWebsocketSecret: present(env, 'SVC_BROADCAST_WEBSOCKET_SECRET') ?? '',
    adminUser: present(env, 'SVC_ADMIN_USER') ?? 'admin',
    adminPassword: present(env, 'SVC_ADMIN_PASSWORD') ?? null,
    csrfTrustedOrigins: list(present(env, 'SVC_CSRF_TRUSTED_ORIGINS'), []),
    allowedHosts: list(present(env, 'SVC_ALLOWED_HOSTS'), ['*']),
    nodeName: present(env, 'SVC_NODE_NAME') ?? hostname(),
    nodeType,
    httpPort: parsePort('NGINX_HTTP_PORT', present(env, 'NGINX_HTTP_PORT'), embeddedPorts ? 8013 : 80, problems),
    httpsPort: parsePort('NGINX_HTTPS_PORT', present(env, 'NGINX_HTTPS_PORT'), embeddedPorts ? 8043 : 443, problems),
    listenAddress: present(env, 'SVC_LISTEN_ADDRESS') ?? '0.0.0.0',
    sessionCookieSecure: parseBoolean('SESSION_COOKIE_SECURE', present(env, 'SESSION_COOKIE_SECURE'), true, problems),
    csrfCookieSecure: parseBoolean('CSRF_COOKIE_SECURE', present(env, 'CSRF_COOKIE_SECURE'), true, problems),
    tlsCert,
    tlsKey,
    settingsFile: present(env, 'SVC_SETTINGS_FILE') ?? null,
    projectsRoot: '',
    localSourceDirs: [],
    trustedProxies: list(present(env, 'SVC_TRUSTED_PROXIES'), ['loopback']),
    createDemoData: parseBoolean('SVC_CREATE_DEMO_DATA', present(env, 'SVC_CREATE_DEMO_DATA'), true, problems),
    socialAuthProviderUrl: present(env, 'SVC_SOCIAL_AUTH_PROVIDER_URL') ?? null,
    secretStoreUrl: present(env, 'SVC_SECRET_STORE_URL') ?? null,
    assistant: assistantProcessConfig(env, problems),
  };
  config.projectsRoot = path.resolve(present(env, 'SVC_PROJECTS_ROOT') ?? path.join(config.dataDir, 'projects'));
  config.localSourceDirs = [path.join(config.dataDir, 'demo')];
  if (config.socialAuthProviderUrl !== null && !/^https?:\/\/[^\s/?#]+\/?$/i.test(config.socialAuthProviderUrl)) {
    problems.push(`SVC_SOCIAL_AUTH_PROVIDER_URL must be a scheme and host such as http://127.0.0.1:8080, got "${config.socialAuthProviderUrl}"`);
  }
  if (config.secretStoreUrl !== null && !/^https?:\/\/[^\s/?#]+\/?$/i.test(config.secretStoreUrl)) {
    problems.push(`SVC_SECRET_STORE_URL must be a scheme and host such as http://127.0.0.1:8080, got "${config.secretStoreUrl}"`);
  }
  if (problems.length) throw new ConfigError(`drover cannot start: ${problems.join('; ')}`);
  if (mode === 'embedded' && role === 'service') {
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    if (!config.secretKey) config.secretKey = await readOrCreateSecret(path.join(config.dataDir, 'secret_key'));
    if (!config.broadcastWebsocketSecret) {
      config.broadcastWebsocketSecret = await readOrCreateSecret(path.join(config.dataDir, 'broadcast_websocket_secret'));
    }
    if (config.csrfTrustedOrigins.length === 0) {
      config.csrfTrustedOrigins = [`http://localhost:${config.httpPort}`, `https://localhost:${config.httpsPort}`];
    }
  }
  return config;
}

function assistantProcessConfig(env: Env, problems: string[]): AssistantProcessConfig {
  const externalUrl = present(env, 'SVC_ASSISTANT_URL')?.replace(/\/+$/, '') ?? null;
  if (externalUrl !== null && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i.test(externalUrl)) {
    problems.push(`SVC_ASSISTANT_URL must be an http(s) address such as http://127.0.0.1:8100, got "${externalUrl}"`);
  }
  return {
    enabled: parseBoolean('SVC_ASSISTANT_ENABLED', present(env, 'SVC_ASSISTANT_ENABLED'), true, problems) && externalUrl === null,
    host: present(env, 'SVC_ASSISTANT_HOST') ?? '127.0.0.1',
    port: parsePort('SVC_ASSISTANT_PORT', present(env, 'SVC_ASSISTANT_PORT'), 8100, problems),
    externalUrl,
    url: externalUrl,
  };
}

/** A random secret kept in a file readable only by its owner, made on first use. */
async function readOrCreateSecret(file: string): Promise<string> {
  try {
    const secret = (await readFile(file, 'utf8')).trim();
    // One made by an earlier version, or copied in with a looser mode, is made private again.
    const { mode, uid } = await stat(file);
    if (mode & 0o077 && uid === process.getuid?.()) await chmod(file, 0o600);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const secret = randomBytes(48).toString('base64url');
  await writeFile(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  return secret;
}
