/**
 * A stand-in HashiCorp Vault on 127.0.0.1 speaking the parts of its API that lookups use: tokens
 * in X-Vault-Token, KV v1 (GET /v1/<mount>/<path> -> {data}), KV v2 (GET /v1/<mount>/data/<path>
 * -> {data: {data, metadata}}), AppRole login (POST /v1/auth/approle/login -> {auth: {client_token}})
 * and the SSH signer (POST /v1/<mount>/sign/<role> -> {data: {signed_key}}).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VaultServer {
  url: string;
  /** Every request: method, path (with query) and the token it carried. */
  requests: Array<{ method: string; path: string; token: string | undefined; body: string }>;
  close(): Promise<void>;
}

export interface VaultContents {
  tokens: string[];
  /** KV v1 secrets by full path under /v1/ ("kv/app"). */
  v1?: Record<string, Record<string, string>>;
  /** KV v2 secrets by mount and path ("secret" -> "app/db"). */
  v2?: Record<string, Record<string, Record<string, string>>>;
  approle?: { role_id: string; secret_id: string; token: string };
  /** SSH signer mounts: role -> signed key prefix. */
  ssh?: Record<string, string>;
}

export async function startVaultServer(contents: VaultContents): Promise<VaultServer> {
  const requests: VaultServer['requests'] = [];
  const answer = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://vault');
      const token = req.headers['x-vault-token'] as string | undefined;
      requests.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, token, body });
      const path = url.pathname.replace(/^\/v1\//, '');
      if (req.method === 'POST' && path === 'auth/approle/login') {
        const given = JSON.parse(body || '{}');
        const role = contents.approle;
        if (role && given.role_id === role.role_id && given.secret_id === role.secret_id) return answer(res, 200, { auth: { client_token: role.token } });
        return answer(res, 400, { errors: ['invalid role or secret ID'] });
      }
      if (!token || !contents.tokens.includes(token)) return answer(res, 403, { errors: ['permission denied'] });
      const sign = /^([^/]+)\/sign\/([^/]+)$/.exec(path);
      if (req.method === 'POST' && sign && contents.ssh?.[sign[2]]) {
        const { public_key } = JSON.parse(body || '{}');
        return answer(res, 200, { data: { serial_number: '1', signed_key: `${contents.ssh[sign[2]]} ${String(public_key).split(' ')[1] ?? ''}` } });
      }
      const v2 = /^([^/]+)\/data\/(.+)$/.exec(path);
      if (req.method === 'GET' && v2 && contents.v2?.[v2[1]]?.[v2[2]]) {
        return answer(res, 200, { data: { data: contents.v2[v2[1]][v2[2]], metadata: { version: Number(url.searchParams.get('version') ?? 1) } } });
      }
      if (req.method === 'GET' && contents.v1?.[path]) return answer(res, 200, { data: contents.v1[path] });
      answer(res, 404, { errors: [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
