/**
 * Microsoft Azure Key Vault (AWX's azure_kv.py through the Azure SDK): a token by the client
 * credentials grant at the cloud's sign-in authority, then GET <vault>/secrets/<name>/<version>.
 */
import { call, jsonOf, LookupFailed, storeEndpoint, str, type LookupArgs, type LookupContext } from './lookup.ts';

/** By cloud_name: the sign-in authority and the Key Vault resource the token is for (the SDK's clouds). */
const CLOUDS: Record<string, { authority: string; resource: string }> = {
  AzureCloud: { authority: 'https://login.microsoftonline.com', resource: 'https://vault.azure.net' },
  AzureChinaCloud: { authority: 'https://login.chinacloudapi.cn', resource: 'https://vault.azure.cn' },
  AzureUSGovernment: { authority: 'https://login.microsoftonline.us', resource: 'https://vault.usgovcloudapi.net' },
  AzureGermanCloud: { authority: 'https://login.microsoftonline.de', resource: 'https://vault.microsoftazure.de' },
};

/** The Key Vault REST API version the SDK speaks. */
const API_VERSION = '7.4';

export async function azureKvLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const cloud = CLOUDS[str(args, 'cloud_name') || 'AzureCloud'];
  if (!cloud) throw new LookupFailed(`Unknown cloud environment ${str(args, 'cloud_name')}.`);
  const tenant = str(args, 'tenant');
  if (!/^[A-Za-z0-9.-]+$/.test(tenant)) throw new LookupFailed('The tenant ID must be a GUID or a domain name.');
  const tokenAnswer = await call(context, {
    url: storeEndpoint(`${cloud.authority}/${tenant}/oauth2/v2.0/token`, context),
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: str(args, 'client'), client_secret: str(args, 'secret'), scope: `${cloud.resource}/.default` }).toString(),
  });
  const token = jsonOf(tokenAnswer).access_token;
  if (typeof token !== 'string') throw new LookupFailed('The sign-in authority answered no access token.');
  const name = encodeURIComponent(str(args, 'secret_field'));
  const version = str(args, 'secret_version') ? `/${encodeURIComponent(str(args, 'secret_version'))}` : '';
  let vault: URL;
  try {
    vault = new URL(str(args, 'url'));
  } catch {
    throw new LookupFailed(`Invalid URL: ${str(args, 'url')}`);
  }
  const url = `${vault.origin}${vault.pathname.replace(/\/+$/, '')}/secrets/${name}${version}?api-version=${API_VERSION}`;
  const value = jsonOf(await call(context, { url, headers: { authorization: `Bearer ${token}` } })).value;
  if (typeof value !== 'string') throw new LookupFailed(`Secret ${str(args, 'secret_field')} has no value.`);
  return value;
}
