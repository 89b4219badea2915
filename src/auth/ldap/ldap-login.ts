/**
 * LDAP sign-in, in the order of the specification: (1) username and password in; (2) connect and
 * bind with the service account; (3) find the user's DN (search, or the DN template); (4) bind as
 * the user; (5) map attributes to user fields; (6) read groups for the require/deny groups, flags
 * and maps; (7) the local user is created or updated and (8) the session started by the caller
 * (external-user.ts, the password path). The servers are tried in order; the first that knows
 * the user decides.
 */
import { Client, Filter, InvalidCredentialsError, type Entry } from 'ldapts';
import type { Services } from '../../api/context.ts';
import { groupMatcher, membershipsFromMaps } from '../external/mapping.ts';
import type { ExternalIdentity } from '../external/external-user.ts';
import { SourceUnavailable, type PasswordBackend } from '../external/password-backends.ts';
import { ldapServers, type LdapServerConfig } from './ldap-config.ts';
import { firstAttribute, ldapScope, userGroups } from './ldap-groups.ts';

/** What this sign-in may be called as locally; anything else is refused before the directory is asked. */
const USERNAME = /^[\w.@+-]{1,150}$/;

type Outcome = ExternalIdentity | { refused: string } | null;

/** A DN attribute value with the characters RFC 4514 reserves escaped. */
function escapeDnValue(value: string): string {
  return value.replace(/[,+"\\<>;=]/g, (c) => `\\${c}`).replace(/^[ #]/, (c) => `\\${c}`).replace(/ $/, '\\ ');
}

function tlsOptions(config: LdapServerConfig) {
  return { rejectUnauthorized: config.verifyCertificate, ...(config.caCertificate.trim() && { ca: config.caCertificate }) };
}

/** Connects to the first of the server's URIs that answers, Start TLS if asked. */
async function connect(config: LdapServerConfig): Promise<Client> {
  for (const url of config.uris) {
    // ldapts speaks TLS from the start whenever tlsOptions are given, so only ldaps:// gets them here.
    const secure = url.startsWith('ldaps:') ? { tlsOptions: tlsOptions(config) } : {};
    const client = new Client({ url, timeout: config.timeoutMs, connectTimeout: config.timeoutMs, strictDN: false, ...secure });
    try {
      if (config.startTls && url.startsWith('ldap:')) await client.startTLS(tlsOptions(config));
      else await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'], sizeLimit: 1 });
      return client;
    } catch {
      await client.unbind().catch(() => undefined);
    }
  }
  throw new SourceUnavailable(`no server of ${config.name} answered`);
}

async function bindService(client: Client, config: LdapServerConfig): Promise<void> {
  if (!config.bindDn) return;
  try {
    await client.bind(config.bindDn, config.bindPassword);
  } catch (err) {
    // A refused service account is a broken configuration: nobody can sign in through it.
    throw new SourceUnavailable(err instanceof InvalidCredentialsError ? `${config.name}: the bind DN was refused` : `${config.name}: bind failed`);
  }
}

const USER_ATTRIBUTES = (config: LdapServerConfig) => [...new Set(['uid', 'gidNumber', ...Object.values(config.userAttrMap)])];

/** Step 3: the user's entry, by the DN template or by the user searches (exactly one match). */
async function findUser(client: Client, config: LdapServerConfig, username: string): Promise<Entry | null> {
  if (config.userDnTemplate) return { dn: config.userDnTemplate.split('%(user)s').join(escapeDnValue(username)) };
  for (const [base, scope, filter] of config.userSearches) {
    const { searchEntries } = await client.search(base, {
      scope: ldapScope(scope),
      filter: filter.split('%(user)s').join(Filter.escape(username)),
      attributes: USER_ATTRIBUTES(config),
      sizeLimit: 2,
    }).catch((err) => {
      if (err?.name === 'SizeLimitExceededError') return { searchEntries: [{ dn: '' }, { dn: '' }] as Entry[] };
      throw err;
    });
    if (searchEntries.length === 1) return searchEntries[0];
    // Several entries for one name: nobody can tell which is meant (as django-auth-ldap).
    if (searchEntries.length > 1) return null;
  }
  return null;
}

async function readEntry(client: Client, config: LdapServerConfig, dn: string): Promise<Entry> {
  const { searchEntries } = await client.search(dn, { scope: 'base', filter: '(objectClass=*)', attributes: USER_ATTRIBUTES(config) });
  return searchEntries[0] ?? { dn };
}

const asList = (value: string | string[]) => (typeof value === 'string' ? [value] : value);

async function signInAt(config: LdapServerConfig, username: string, password: string): Promise<Outcome> {
  const client = await connect(config);
  try {
    await bindService(client, config);
    let user = await findUser(client, config, username);
    if (!user) return null;
    const dn = user.dn;
    try {
      await client.bind(dn, password);
    } catch (err) {
      if (err instanceof InvalidCredentialsError) return null;
      throw err;
    }
    // With a template the entry is read now, as the user (or as the service account once rebound).
    await bindService(client, config);
    if (config.userDnTemplate) user = await readEntry(client, config, dn);
    const profile: Partial<Record<'first_name' | 'last_name' | 'email', string>> = {};
    for (const [field, attr] of Object.entries(config.userAttrMap)) {
      const value = firstAttribute(user, attr);
      if (value !== undefined) profile[field as 'email'] = value;
    }
    const groups = await userGroups(client, config, dn, user);
    const member = groupMatcher(groups);
    if (config.requireGroup && !member(config.requireGroup)) return { refused: 'require_group' };
    if (config.denyGroup && member(config.denyGroup)) return { refused: 'deny_group' };
    const flags: ExternalIdentity['flags'] = {};
    for (const flag of ['is_superuser', 'is_system_auditor'] as const) {
      const rule = config.userFlagsByGroup[flag];
      if (rule !== undefined) flags[flag] = asList(rule).some(member);
    }
    return {
      backend: 'ldap',
      source: config.name,
      uid: dn,
      username,
      ...profile,
      flags,
      memberships: membershipsFromMaps(config.organizationMap, config.teamMap, member),
    };
  } catch (err) {
    if (err instanceof SourceUnavailable) throw err;
    // Timeouts, dropped connections and protocol errors: the server did not answer properly.
    throw new SourceUnavailable(`${config.name}: ${(err as Error)?.name ?? 'error'}`);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

/** LDAP as a password backend: each configured server in order; the first that knows the user decides. */
export const ldapPasswordBackend: PasswordBackend = {
  name: 'ldap',
  configured: (services: Pick<Services, 'settings'>) => ldapServers(services.settings).length > 0,
  async authenticate(services, username, password) {
    if (!USERNAME.test(username) || password === '') return null;
    let unavailable: SourceUnavailable | null = null;
    for (const config of ldapServers(services.settings)) {
      try {
        const outcome = await signInAt(config, username, password);
        if (outcome) return outcome;
      } catch (err) {
        if (!(err instanceof SourceUnavailable)) throw err;
        unavailable ??= err;
      }
    }
    if (unavailable) throw unavailable;
    return null;
  },
};
