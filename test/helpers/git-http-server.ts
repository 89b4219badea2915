// A smart-HTTP git server for tests: node:http in front of git-http-backend (CGI), on 127.0.0.1,
// with optional HTTP Basic authentication.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HERMETIC_GIT_ENV } from './git.ts';

const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

export interface GitHttpServerOptions {
  /** With username and password, every request needs them (HTTP Basic); others answer 401. */
  username?: string;
  password?: string;
  /** Accept pushes (git-receive-pack); off by default. */
  allowPush?: boolean;
}

export interface GitHttpRequest {
  method: string;
  path: string;
  /** The authenticated user, null when none was given or accepted. */
  user: string | null;
  status: number;
}

export interface GitHttpServer {
  port: number;
  /** http://127.0.0.1:PORT/<repo>.git (`.git` is added when missing). */
  url(repoName: string): string;
  /** The same URL with the server's credentials in it (http://user:pass@...). */
  urlWithCredentials(repoName: string): string;
  /** Every request served, in order: lets a test see whether and how credentials were sent. */
  requests: GitHttpRequest[];
  close(): Promise<void>;
}

function authenticatedUser(header: string | undefined, options: GitHttpServerOptions): string | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const [user, password] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  return user === options.username && password === options.password ? user : null;
}

/** Reads the CGI header block off the front of the backend's output. */
function splitCgiHeaders(buffer: Buffer): { headers: [string, string][]; status: number; body: Buffer } | null {
  let end = buffer.indexOf('\r\n\r\n');
  let separator = 4;
  const lf = buffer.indexOf('\n\n');
  if (lf >= 0 && (end < 0 || lf < end)) [end, separator] = [lf, 2];
  if (end < 0) return null;
  const headers: [string, string][] = [];
  let status = 200;
  for (const line of buffer.subarray(0, end).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers.push([name, value]);
  }
  return { headers, status, body: buffer.subarray(end + separator) };
}

/** Serves the bare repositories under `root` (`<root>/<name>.git`) over smart HTTP. */
export async function startGitHttpServer(root: string, options: GitHttpServerOptions = {}): Promise<GitHttpServer> {
  const requests: GitHttpRequest[] = [];
  const needsAuth = options.username !== undefined;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const record: GitHttpRequest = { method: req.method ?? 'GET', path: url.pathname, user: null, status: 0 };
    requests.push(record);
    res.on('finish', () => (record.status = res.statusCode));
    record.user = needsAuth ? authenticatedUser(req.headers.authorization, options) : null;
    if (needsAuth && record.user === null) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="Git"', 'Content-Type': 'text/plain' });
      res.end('Authentication required\n');
      return;
    }
    const pathInfo = decodeURIComponent(url.pathname);
    if (pathInfo.split('/').includes('..')) {
      res.writeHead(404).end();
      return;
    }
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...HERMETIC_GIT_ENV,
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: 'HTTP/1.1',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: pathInfo,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: record.method,
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    };
    if (record.user !== null) env.REMOTE_USER = record.user;
    if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
    if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
    const protocol = req.headers['git-protocol'];
    if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;
    Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.receivepack', GIT_CONFIG_VALUE_0: options.allowPush ? 'true' : 'false' });

    const backend = spawn(HTTP_BACKEND, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    backend.stdin.on('error', () => undefined);
    req.pipe(backend.stdin);
    let pending: Buffer | null = Buffer.alloc(0);
    let stderr = '';
    backend.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    backend.stdout.on('data', (chunk: Buffer) => {
      if (pending === null) {
        res.write(chunk);
        return;
      }
      pending = Buffer.concat([pending, chunk]);
      const parsed = splitCgiHeaders(pending);
      if (!parsed) return;
      pending = null;
      res.writeHead(parsed.status, parsed.headers.flat());
      res.write(parsed.body);
    });
    backend.on('close', (code) => {
      if (pending !== null && !res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`git-http-backend exited ${code}: ${stderr}`);
      else res.end();
    });
    backend.on('error', (err) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(err));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const repoPath = (repoName: string) => (repoName.endsWith('.git') ? repoName : `${repoName}.git`).replace(/^\/+/, '');
  return {
    port,
    requests,
    url: (repoName) => `http://127.0.0.1:${port}/${repoPath(repoName)}`,
    urlWithCredentials: (repoName) =>
      `http://${encodeURIComponent(options.username ?? '')}:${encodeURIComponent(options.password ?? '')}@127.0.0.1:${port}/${repoPath(repoName)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
