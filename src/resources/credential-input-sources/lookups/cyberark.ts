/** CyberArk: the Central Credential Provider (AWX's aim.py) and Conjur (conjur.py). */
import { call, jsonOf, LookupFailed, str, urlJoin, type LookupArgs, type LookupContext } from './lookup.ts';

/** CCP answers property names capitalised (UserName, Content, Address): AWX's mapping. */
function ccpProperty(asked: string): string {
  const lower = asked.toLowerCase();
  if (asked === '' || lower === 'password') return 'Content';
  if (lower === 'username') return 'UserName';
  if (lower === 'address') return 'Address';
  return asked.charAt(0).toUpperCase() + asked.slice(1).toLowerCase();
}

export async function ccpLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const query = new URLSearchParams({ AppId: str(args, 'app_id'), Query: str(args, 'object_query'), QueryFormat: str(args, 'object_query_format') || 'Exact' });
  if (str(args, 'reason')) query.set('reason', str(args, 'reason'));
  const url = `${urlJoin(str(args, 'url'), `${str(args, 'webservice_id') || 'AIMWebService'}/api/Accounts`)}?${query.toString().replace(/\+/g, '%20')}`;
  const response = await call(context, {
    url,
    verifyTls: args.verify !== false,
    tls: { cert: str(args, 'client_cert') || undefined, key: str(args, 'client_key') || undefined },
  });
  const property = ccpProperty(str(args, 'object_property'));
  const value = jsonOf(response)[property];
  if (typeof value !== 'string') throw new LookupFailed(`Property ${str(args, 'object_property') || property} not found in object, available properties: Username, Password and Address`);
  return value;
}

const isBase64 = (s: string) => s !== '' && Buffer.from(s, 'base64').toString('base64') === s;

/** Conjur and Conjur Cloud (its paths under api/): each request tried on the first, then the second. */
async function either(context: LookupContext, urls: [string, string], request: { method?: string; headers: Record<string, string>; body?: string; tls: { ca?: string } }) {
  try {
    return await call(context, { url: urls[0], ...request });
  } catch (err) {
    if (!(err instanceof LookupFailed) || !err.message.startsWith('HTTP ')) throw err;
    return call(context, { url: urls[1], ...request });
  }
}

export async function conjurLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const base = str(args, 'url');
  const account = encodeURIComponent(str(args, 'account'));
  const username = encodeURIComponent(str(args, 'username'));
  const tls = { ca: str(args, 'cacert') || undefined };
  const auth = await either(context, [urlJoin(base, `authn/${account}/${username}/authenticate`), urlJoin(base, `api/authn/${account}/${username}/authenticate`)], {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'accept-encoding': 'base64' },
    body: str(args, 'api_key'),
    tls,
  });
  const token = auth.body;
  const header = `Token token="${isBase64(token) ? token : Buffer.from(token).toString('base64')}"`;
  const secret = encodeURIComponent(str(args, 'secret_path'));
  const version = str(args, 'secret_version') ? `?version=${encodeURIComponent(str(args, 'secret_version'))}` : '';
  const answer = await either(context, [urlJoin(base, `secrets/${account}/variable/${secret}`) + version, urlJoin(base, `api/secrets/${account}/variable/${secret}`) + version], {
    headers: { authorization: header },
    tls,
  });
  return answer.body;
}
