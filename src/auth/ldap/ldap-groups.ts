/**
 * The groups an LDAP user belongs to, read as the configured group type says (django-auth-ldap's
 * group types): by the group's member attribute holding the user's DN, or POSIX gidNumber/memberUid.
 */
import { Filter, type Client, type Entry } from 'ldapts';
import type { LdapSearch, LdapServerConfig } from './ldap-config.ts';

const MEMBER_ATTRS: Record<string, string> = {
  GroupOfNamesType: 'member',
  GroupOfUniqueNamesType: 'uniqueMember',
  ActiveDirectoryGroupType: 'member',
  OrganizationalRoleGroupType: 'roleOccupant',
};

const SCOPES: Record<string, 'base' | 'one' | 'sub'> = { SCOPE_BASE: 'base', SCOPE_ONELEVEL: 'one', SCOPE_SUBTREE: 'sub' };
export const ldapScope = (scope: string) => SCOPES[scope] ?? 'sub';

/** Nested groups are followed this many levels up, no further (a loop in the directory ends here too). */
const MAX_NESTING = 10;
const MAX_GROUPS = 1000;

const first = (entry: Entry, attr: string): string | undefined => {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attr.toLowerCase());
  const value = key ? entry[key] : undefined;
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined ? undefined : String(one);
};

async function groupDns(client: Client, search: LdapSearch, condition: string): Promise<string[]> {
  const [base, scope, filter] = search;
  const { searchEntries } = await client.search(base, { scope: ldapScope(scope), filter: `(&${filter}${condition})`, attributes: ['dn'], sizeLimit: MAX_GROUPS });
  return searchEntries.map((e) => e.dn);
}

/** The DNs of the user's groups; none when no group search is configured. */
export async function userGroups(client: Client, config: LdapServerConfig, userDn: string, user: Entry): Promise<string[]> {
  const search = config.groupSearch;
  if (!search) return [];
  const type = config.groupType;
  if (type === 'PosixGroupType') {
    const conditions = [];
    const gid = first(user, 'gidNumber');
    const uid = first(user, 'uid');
    if (gid) conditions.push(`(gidNumber=${Filter.escape(gid)})`);
    if (uid) conditions.push(`(memberUid=${Filter.escape(uid)})`);
    return conditions.length ? groupDns(client, search, `(|${conditions.join('')})`) : [];
  }
  const base = type.replace(/^Nested/, '');
  const memberAttr = MEMBER_ATTRS[base] ?? config.groupTypeParams.member_attr ?? 'member';
  const direct = await groupDns(client, search, `(${memberAttr}=${Filter.escape(userDn)})`);
  if (!type.startsWith('Nested')) return direct;
  const found = new Set(direct);
  let frontier = direct;
  for (let level = 0; level < MAX_NESTING && frontier.length && found.size < MAX_GROUPS; level++) {
    const parents = await groupDns(client, search, `(|${frontier.map((dn) => `(${memberAttr}=${Filter.escape(dn)})`).join('')})`);
    frontier = parents.filter((dn) => !found.has(dn));
    for (const dn of frontier) found.add(dn);
  }
  return [...found];
}

export { first as firstAttribute };
