/**
 * HashiCorp Vault: the KV secrets engine (v1 and v2) and the SSH signer, as AWX's hashivault.py calls
 * them: a token given, or one from a login (userpass, AppRole, TLS certificate) at
 * /v1/auth/<auth path>/login; the token sent as X-Vault-Token and as a bearer token.
 */
import { asInputValue, call, jsonOf, LookupFailed, str, urlJoin, type LookupArgs, type LookupContext } from './lookup.ts';

const tlsOf = (args: LookupArgs) => ({
  ca: str(args, 'cacert') || undefined,
  cert: str(args, 'client_cert_public') || undefined,
  key: str(args, 'client_cert_private') || undefined,
});

const namespaceHeader = (args: LookupArgs): Record<string, string> => (str(args, 'namespace') ? { 'X-Vault-Namespace': str(args, 'namespace') } : {});

/** A URL under the server's /v1/, its segments joined with single slashes. */
const v1Url = (args: LookupArgs, ...segments: string[]) => urlJoin(str(args, 'url'), ['v1', ...segments].join('/').replace(/\/+/g, '/')).replace(/\/+$/, '');

async function login(args: LookupArgs, context: LookupContext, body: Record<string, unknown>, suffix = ''): Promise<string> {
  const authPath = str(args, 'auth_path') || str(args, 'default_auth_path');
  const response = await call(context, {
    url: v1Url(args, 'auth', authPath, 'login', suffix),
    method: 'POST',
    headers: { 'content-type': 'application/json', ...namespaceHeader(args) },
    body: JSON.stringify(body),
    tls: tlsOf(args),
  });
  const token = (jsonOf(response).auth as { client_token?: unknown } | undefined)?.client_token;
  if (typeof token !== 'string' || !token) throw new LookupFailed('The Vault login answered no client token.');
  return token;
}

/** AWX's handle_auth, in its order. */
async function vaultToken(args: LookupArgs, context: LookupContext): Promise<string> {
  if (str(args, 'token')) return str(args, 'token');
  if (str(args, 'username') && str(args, 'password')) return login(args, context, { username: str(args, 'username'), password: str(args, 'password') }, str(args, 'username'));
  if (str(args, 'role_id') && str(args, 'secret_id')) return login(args, context, { role_id: str(args, 'role_id'), secret_id: str(args, 'secret_id') });
  if (str(args, 'kubernetes_role')) throw new LookupFailed('Kubernetes authentication needs a service account token of a pod; use a token, AppRole, username/password or a TLS certificate.');
  if (str(args, 'client_cert_public') && str(args, 'client_cert_private')) return login(args, context, { name: str(args, 'client_cert_role') || null });
  throw new LookupFailed('Token, Username/Password, AppRole, Kubernetes, or TLS authentication parameters must be set');
}

const tokenHeaders = (token: string, args: LookupArgs) => ({ authorization: `Bearer ${token}`, 'X-Vault-Token': token, ...namespaceHeader(args) });

export async function kvLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const token = await vaultToken(args, context);
  const secretPath = str(args, 'secret_path');
  const backend = str(args, 'secret_backend');
  const secretKey = str(args, 'secret_key');
  const v2 = str(args, 'api_version') === 'v2';
  let segments: string[];
  if (v2) {
    const [mount, ...rest] = secretPath.split('/').filter(Boolean);
    segments = backend ? [backend, 'data', secretPath] : [mount ?? '', 'data', ...rest];
  } else segments = backend ? [backend, secretPath] : [secretPath];
  let url = v1Url(args, ...segments);
  if (v2 && str(args, 'secret_version')) url += `?version=${encodeURIComponent(str(args, 'secret_version'))}`;
  const answer = jsonOf(await call(context, { url, headers: tokenHeaders(token, args), tls: tlsOf(args) }));
  const body = (v2 ? answer.data : answer) as { data?: Record<string, unknown> } | undefined;
  const data = body?.data;
  if (!data || typeof data !== 'object') throw new LookupFailed(`${secretKey || 'data'} is not present at ${secretPath}`);
  if (!secretKey) return asInputValue(data);
  // As AWX: a v2 answer read as v1 has the values one level deeper.
  const nested = data.data as Record<string, unknown> | undefined;
  const value = secretKey !== 'data' && !(secretKey in data) && nested && typeof nested === 'object' ? nested[secretKey] : data[secretKey];
  if (value === undefined) throw new LookupFailed(`${secretKey} is not present at ${secretPath}`);
  return asInputValue(value);
}

export async function sshSign(args: LookupArgs, context: LookupContext): Promise<string> {
  const token = await vaultToken(args, context);
  const body: Record<string, string> = { public_key: str(args, 'public_key') };
  if (str(args, 'valid_principals')) body.valid_principals = str(args, 'valid_principals');
  const response = await call(context, {
    url: v1Url(args, str(args, 'secret_path'), 'sign', str(args, 'role')),
    method: 'POST',
    headers: { ...tokenHeaders(token, args), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    tls: tlsOf(args),
  });
  const signed = (jsonOf(response).data as { signed_key?: unknown } | undefined)?.signed_key;
  if (typeof signed !== 'string') throw new LookupFailed('The Vault SSH signer answered no signed key.');
  return signed;
}
