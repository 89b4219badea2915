/** Centrify Vault (AWX's centrify_vault.py): an OAuth2 token, the account's id by a Redrock query, then its password checked out. */
import { call, jsonOf, LookupFailed, str, urlJoin, type LookupArgs, type LookupContext } from './lookup.ts';

const quoted = (value: string) => value.replace(/'/g, "''");

export async function centrifyLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const base = str(args, 'url');
  const basic = Buffer.from(`${str(args, 'client_id')}:${str(args, 'client_password')}`).toString('base64');
  const tokenAnswer = await call(context, {
    url: urlJoin(base, `/oauth2/token/${encodeURIComponent(str(args, 'oauth_application_id') || 'awx')}`),
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: str(args, 'oauth_scope') || 'awx' }).toString(),
  });
  const token = jsonOf(tokenAnswer).access_token;
  if (typeof token !== 'string') throw new LookupFailed('OAuth request to tenant was unsuccessful');
  const headers = { authorization: `Bearer ${token}`, 'X-CENTRIFY-NATIVE-CLIENT': 'true', 'content-type': 'application/json' };
  const script = `Select ID from VaultAccount where  Name='${quoted(str(args, 'system-name'))}' and User='${quoted(str(args, 'account-name'))}'`;
  const found = jsonOf(await call(context, { url: urlJoin(base, '/Redrock/query'), method: 'POST', headers, body: JSON.stringify({ Script: script }) }));
  const id = (found.Result as { Results?: Array<{ Row?: { ID?: unknown } }> } | undefined)?.Results?.[0]?.Row?.ID;
  if (id === undefined) throw new LookupFailed('Error Detected!! Check the Inputs');
  const checkout = jsonOf(await call(context, { url: urlJoin(base, '/ServerManage/CheckoutPassword'), method: 'POST', headers, body: JSON.stringify({ ID: id }) }));
  const password = (checkout.Result as { Password?: unknown } | undefined)?.Password;
  if (typeof password !== 'string') throw new LookupFailed('Password Not Found');
  return password;
}
