import type { Settings } from '../../config/settings/store.ts';
import { LDAP_CONNECTION_DEFAULT, LDAP_PREFIXES } from '../../config/settings/categories/ldap.ts';
import type { OrganizationMap, TeamMap } from '../../config/settings/sso-maps.ts';

export type LdapSearch = [base: string, scope: string, filter: string];

/** One LDAP server's settings (AUTH_LDAP_* or AUTH_LDAP_<n>_*), read at sign-in time. */
export interface LdapServerConfig {
  /** The category slug: ldap, ldap1..ldap5 (for messages). */
  name: string;
  uris: string[];
  bindDn: string;
  bindPassword: string;
  startTls: boolean;
  timeoutMs: number;
  verifyCertificate: boolean;
  caCertificate: string;
  userSearches: LdapSearch[];
  userDnTemplate: string;
  userAttrMap: Record<string, string>;
  groupSearch: LdapSearch | null;
  groupType: string;
  groupTypeParams: Record<string, string>;
  requireGroup: string | null;
  denyGroup: string | null;
  userFlagsByGroup: Record<string, string | string[]>;
  organizationMap: OrganizationMap;
  teamMap: TeamMap;
}

function serverConfig(settings: Pick<Settings, 'get'>, prefix: string, name: string): LdapServerConfig {
  const get = <T>(key: string) => settings.get<T>(`${prefix}${key}`);
  const options = { ...LDAP_CONNECTION_DEFAULT, ...get<Record<string, number>>('CONNECTION_OPTIONS') } as Record<string, number>;
  const search = get<unknown[]>('USER_SEARCH') ?? [];
  const groupSearch = get<unknown[]>('GROUP_SEARCH') ?? [];
  return {
    name,
    uris: String(get<string>('SERVER_URI') ?? '').split(/[\s,]+/).filter(Boolean),
    bindDn: get<string>('BIND_DN') ?? '',
    bindPassword: get<string>('BIND_PASSWORD') ?? '',
    startTls: get<boolean>('START_TLS') ?? false,
    timeoutMs: Math.max(1, options.OPT_NETWORK_TIMEOUT ?? 10) * 1000,
    verifyCertificate: options.OPT_X_TLS_REQUIRE_CERT !== 0,
    caCertificate: get<string>('CA_CERTIFICATE') ?? '',
    userSearches: search.length === 0 ? [] : Array.isArray(search[0]) ? (search as LdapSearch[]) : [search as LdapSearch],
    userDnTemplate: get<string>('USER_DN_TEMPLATE') ?? '',
    userAttrMap: get<Record<string, string>>('USER_ATTR_MAP') ?? {},
    groupSearch: groupSearch.length === 3 ? (groupSearch as LdapSearch) : null,
    groupType: get<string>('GROUP_TYPE') ?? 'MemberDNGroupType',
    groupTypeParams: get<Record<string, string>>('GROUP_TYPE_PARAMS') ?? {},
    requireGroup: get<string | null>('REQUIRE_GROUP') || null,
    denyGroup: get<string | null>('DENY_GROUP') || null,
    userFlagsByGroup: get<Record<string, string | string[]>>('USER_FLAGS_BY_GROUP') ?? {},
    organizationMap: get<OrganizationMap>('ORGANIZATION_MAP') ?? {},
    teamMap: get<TeamMap>('TEAM_MAP') ?? {},
  };
}

/** The configured LDAP servers (a server URI set), in the order they are tried: ldap, ldap1 .. ldap5. */
export function ldapServers(settings: Pick<Settings, 'get'>): LdapServerConfig[] {
  return LDAP_PREFIXES.map((prefix, i) => serverConfig(settings, prefix, i === 0 ? 'ldap' : `ldap${i}`)).filter((s) => s.uris.length > 0);
}
