/**
 * A stand-in for the cloud secret stores on 127.0.0.1, one server speaking each protocol a lookup
 * uses (paths do not overlap):
 * - Azure: POST /<tenant>/oauth2/v2.0/token (client credentials) -> {access_token};
 *   GET /secrets/<name>[/<version>]?api-version= -> {value}
 * - Thycotic Secret Server: POST /SecretServer/oauth2/token (password grant) -> {access_token};
 *   GET /SecretServer/api/v1/secrets/<id>/fields/<slug> -> the value as a JSON string
 * - Thycotic DSV: POST /v1/token {client_id, client_secret} -> {accessToken}; GET /v1/secrets/<path> -> {data}
 * - AWS Secrets Manager: POST / GetSecretValue, its SigV4 signature checked -> {SecretString}
 * - Conjur: POST /authn/<account>/<login>/authenticate (API key) -> a token; GET /secrets/<account>/variable/<id>
 * - Centrify: POST /oauth2/token/<app> (basic) -> {access_token}; POST /Redrock/query; POST /ServerManage/CheckoutPassword
 */
import http from 'node:http';
import { createHash, createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface StoreContents {
  client: { id: string; secret: string };
  /** Where every store keeps the one secret looked up. */
  secret: string;
  /** The bearer token every store hands out after a sign-in. */
  token: string;
}

export interface SecretStoresServer {
  url: string;
  requests: Array<{ method: string; path: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const mac = (k: Buffer | string, s: string) => createHmac('sha256', k).update(s).digest();

/** Recomputes the SigV4 signature from the request as received. */
function awsSignatureValid(req: http.IncomingMessage, body: string, secretKey: string): boolean {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/secretsmanager\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(req.headers.authorization ?? '');
  if (!match) return false;
  const [, , day, region, signed, signature] = match as unknown as string[];
  const names = signed!.split(';');
  const canonical = ['POST', '/', '', names.map((n) => `${n}:${String(req.headers[n]).trim()}\n`).join(''), signed, sha(body)].join('\n');
  const amzDate = String(req.headers['x-amz-date']);
  const scope = `${day}/${region}/secretsmanager/aws4_request`;
  const key = mac(mac(mac(mac(`AWS4${secretKey}`, day!), region!), 'secretsmanager'), 'aws4_request');
  return names.includes('host') && names.includes('x-amz-date') && createHmac('sha256', key).update(['AWS4-HMAC-SHA256', amzDate, scope, sha(canonical)].join('\n')).digest('hex') === signature;
}

export async function startSecretStoresServer(c: StoreContents): Promise<SecretStoresServer> {
  const requests: SecretStoresServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://store');
      const path = url.pathname;
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const form = new URLSearchParams(body);
      const bearer = req.headers.authorization === `Bearer ${c.token}`;
      if (req.method === 'POST' && /^\/[^/]+\/oauth2\/v2\.0\/token$/.test(path)) {
        const ok = form.get('grant_type') === 'client_credentials' && form.get('client_id') === c.client.id && form.get('client_secret') === c.client.secret && form.get('scope') === 'https://vault.azure.net/.default';
        return ok ? json(200, { token_type: 'Bearer', expires_in: 3599, access_token: c.token }) : json(401, { error: 'invalid_client' });
      }
      if (req.method === 'GET' && /^\/secrets\/app-secret(\/v2)?$/.test(path) && url.searchParams.get('api-version')) {
        return bearer ? json(200, { value: c.secret, id: `${url.origin}${path}` }) : json(401, { error: { code: 'Unauthorized' } });
      }
      if (req.method === 'POST' && path === '/SecretServer/oauth2/token') {
        const ok = form.get('grant_type') === 'password' && form.get('username') === c.client.id && form.get('password') === c.client.secret;
        return ok ? json(200, { access_token: c.token, token_type: 'bearer' }) : json(400, { error: 'invalid_grant' });
      }
      if (req.method === 'GET' && path.startsWith('/SecretServer/api/v1/secrets/')) {
        if (!bearer) return json(401, {});
        return path === '/SecretServer/api/v1/secrets/42/fields/password' ? json(200, c.secret) : json(404, { message: 'Not found' });
      }
      if (req.method === 'POST' && path === '/v1/token') {
        const given = JSON.parse(body || '{}') as Record<string, string>;
        const ok = given.grant_type === 'client_credentials' && given.client_id === c.client.id && given.client_secret === c.client.secret;
        return ok ? json(200, { accessToken: c.token, tokenType: 'bearer' }) : json(401, { message: 'unable to authenticate' });
      }
      if (req.method === 'GET' && path.startsWith('/v1/secrets/')) {
        if (!bearer) return json(401, {});
        return path === '/v1/secrets/app/db' ? json(200, { path: 'app:db', data: { password: c.secret, encoded: Buffer.from(c.secret).toString('base64') } }) : json(404, {});
      }
      if (req.method === 'POST' && path === '/' && req.headers['x-amz-target'] === 'secretsmanager.GetSecretValue') {
        if (!awsSignatureValid(req, body, c.client.secret)) return json(403, { __type: 'InvalidSignatureException' });
        const { SecretId } = JSON.parse(body) as { SecretId: string };
        return SecretId === 'app/db' ? json(200, { Name: SecretId, SecretString: c.secret }) : json(400, { __type: 'ResourceNotFoundException' });
      }
      if (req.method === 'POST' && path === `/authn/acme/${encodeURIComponent(c.client.id)}/authenticate`) {
        if (body !== c.client.secret) return json(401, {});
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(Buffer.from(c.token).toString('base64'));
      }
      if (req.method === 'GET' && path.startsWith('/secrets/acme/variable/')) {
        if (req.headers.authorization !== `Token token="${Buffer.from(c.token).toString('base64')}"`) return json(401, {});
        if (decodeURIComponent(path.slice('/secrets/acme/variable/'.length)) !== 'prod/db/password') return json(404, {});
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(c.secret);
      }
      if (req.method === 'POST' && path === '/oauth2/token/awx') {
        const ok = req.headers.authorization === `Basic ${Buffer.from(`${c.client.id}:${c.client.secret}`).toString('base64')}` && form.get('grant_type') === 'client_credentials';
        return ok ? json(200, { access_token: c.token }) : json(401, {});
      }
      if (req.method === 'POST' && path === '/Redrock/query') {
        if (!bearer) return json(401, {});
        const found = (JSON.parse(body) as { Script: string }).Script.includes("Name='db01' and User='root'");
        return json(200, { success: true, Result: { Results: found ? [{ Row: { ID: 'acct-7' } }] : [] } });
      }
      if (req.method === 'POST' && path === '/ServerManage/CheckoutPassword') {
        if (!bearer || (JSON.parse(body) as { ID: string }).ID !== 'acct-7') return json(401, {});
        return json(200, { success: true, Result: { Password: c.secret, COID: 'x' } });
      }
      json(404, { error: 'no such route' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
