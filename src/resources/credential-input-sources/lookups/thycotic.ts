/**
 * Thycotic (Delinea): Secret Server (AWX's tss.py) and DevOps Secrets Vault (dsv.py), as their SDKs
 * call them.
 */
import { call, jsonOf, LookupFailed, storeEndpoint, str, type LookupArgs, type LookupContext } from './lookup.ts';

const under = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** Secret Server: a password grant (with the domain when given), then the secret's field by slug. */
export async function tssLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const base = str(args, 'server_url');
  const form = new URLSearchParams({ grant_type: 'password', username: str(args, 'username'), password: str(args, 'password') });
  if (str(args, 'domain')) form.set('domain', str(args, 'domain'));
  const tokenAnswer = await call(context, {
    url: under(base, '/oauth2/token'), method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString(),
  });
  const token = jsonOf(tokenAnswer).access_token;
  if (typeof token !== 'string') throw new LookupFailed('Secret Server answered no access token.');
  const id = str(args, 'secret_id');
  if (!/^\d+$/.test(id)) throw new LookupFailed('The secret ID must be an integer.');
  const field = encodeURIComponent(str(args, 'secret_field'));
  const answer = await call(context, { url: under(base, `/api/v1/secrets/${id}/fields/${field}`), headers: { authorization: `Bearer ${token}` } });
  // A text field comes as a JSON string, a file field as its content.
  try {
    const parsed: unknown = JSON.parse(answer.body);
    if (typeof parsed === 'string') return parsed;
  } catch {
    // the content as it is
  }
  return answer.body;
}

/** DSV: a client credentials token from the tenant, then the secret's data field. */
export async function dsvLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const tenant = str(args, 'tenant');
  const tld = str(args, 'tld') || 'com';
  if (!/^[A-Za-z0-9-]+$/.test(tenant)) throw new LookupFailed('The tenant must be a single DNS label.');
  if (!/^[a-z.]+$/.test(tld)) throw new LookupFailed(`Invalid top-level domain ${tld}.`);
  const base = storeEndpoint(`https://${tenant}.secretsvaultcloud.${tld}/v1`, context);
  const tokenAnswer = await call(context, {
    url: `${base}/token`, method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: str(args, 'client_id'), client_secret: str(args, 'client_secret') }),
  });
  const token = jsonOf(tokenAnswer).accessToken;
  if (typeof token !== 'string') throw new LookupFailed('DevOps Secrets Vault answered no access token.');
  const path = str(args, 'path').replace(/^\/+|\/+$/g, '').split('/').map(encodeURIComponent).join('/');
  const data = jsonOf(await call(context, { url: `${base}/secrets/${path}`, headers: { authorization: `Bearer ${token}` } })).data as Record<string, unknown> | undefined;
  const value = data?.[str(args, 'secret_field')];
  if (value === undefined) throw new LookupFailed(`${str(args, 'secret_field')} is not present at ${str(args, 'path')}`);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return str(args, 'secret_decoding') === 'Decode Base64' ? Buffer.from(text, 'base64').toString('utf8') : text;
}
