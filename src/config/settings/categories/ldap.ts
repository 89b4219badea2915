/**
 * LDAP sign-in: the default server (category ldap, AUTH_LDAP_*) and five more (ldap1..ldap5,
 * AUTH_LDAP_1_* .. AUTH_LDAP_5_*), tried in that order, with AWX's setting names and defaults.
 */
import { FieldProblem, boolean, choice, json, secret, text, type Field } from '../../../api/fields.ts';
import { organizationMapField, teamMapField } from '../sso-maps.ts';
import { category, setting, type Category } from '../types.ts';

export const LDAP_GROUP_TYPES = [
  'MemberDNGroupType',
  'GroupOfNamesType',
  'GroupOfUniqueNamesType',
  'ActiveDirectoryGroupType',
  'OrganizationalRoleGroupType',
  'PosixGroupType',
  'NestedMemberDNGroupType',
  'NestedGroupOfNamesType',
  'NestedGroupOfUniqueNamesType',
  'NestedActiveDirectoryGroupType',
  'NestedOrganizationalRoleGroupType',
] as const;

export const LDAP_SCOPES = ['SCOPE_BASE', 'SCOPE_ONELEVEL', 'SCOPE_SUBTREE'] as const;

export const LDAP_CONNECTION_DEFAULT = { OPT_REFERRALS: 0, OPT_NETWORK_TIMEOUT: 10 };
const CONNECTION_KEYS = ['OPT_REFERRALS', 'OPT_NETWORK_TIMEOUT', 'OPT_TIMEOUT', 'OPT_X_TLS_REQUIRE_CERT'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function shaped(opts: Parameters<typeof json>[0], check: (value: unknown) => unknown): Field {
  const field = json(opts);
  return { ...field, parse: (value) => (value === null ? field.default : check(value)) };
}

function checkUris(value: string): void {
  for (const uri of value.split(/[\s,]+/).filter(Boolean)) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new FieldProblem(`"${uri}" is not a valid URI.`);
    }
    if (url.protocol !== 'ldap:' && url.protocol !== 'ldaps:') throw new FieldProblem(`"${uri}": only ldap:// and ldaps:// are supported.`);
    if (url.username || url.password || (url.pathname && url.pathname !== '/') || url.search) {
      throw new FieldProblem(`"${uri}": give only the scheme, host and port.`);
    }
  }
}

/** A field with one more check after its own parse. */
function checked(field: Field, check: (value: unknown) => void): Field {
  return { ...field, parse: (value) => { const parsed = field.parse(value); check(parsed); return parsed; } };
}

/** [base DN, scope, filter]: the shape of USER_SEARCH (one or a list of them) and GROUP_SEARCH. */
function checkSearch(value: unknown, where: string, needsUser: boolean): [string, string, string] {
  if (!Array.isArray(value) || value.length !== 3 || !value.every((v) => typeof v === 'string')) {
    throw new FieldProblem(`${where}: expected a list of three strings: base DN, scope and filter.`);
  }
  const [base, scope, filter] = value as string[];
  if (!base.trim()) throw new FieldProblem(`${where}: the base DN may not be blank.`);
  if (!(LDAP_SCOPES as readonly string[]).includes(scope)) throw new FieldProblem(`${where}: the scope must be one of ${LDAP_SCOPES.join(', ')}.`);
  if (!/^\(.*\)$/s.test(filter.trim())) throw new FieldProblem(`${where}: the filter must be in parentheses, such as (uid=%(user)s).`);
  if (needsUser && !filter.includes('%(user)s')) throw new FieldProblem(`${where}: the filter must contain %(user)s.`);
  return [base, scope, filter];
}

const DN_LIST_KEYS = ['is_superuser', 'is_system_auditor'];

function ldapSettings(prefix: string) {
  const n = (name: string) => `${prefix}${name}`;
  return {
    [n('SERVER_URI')]: setting<string>(
      checked(text({
        label: 'LDAP Server URI',
        helpText:
          'URI to connect to LDAP server, such as "ldap://ldap.example.com:389" (non-SSL) or "ldaps://ldap.example.com:636" (SSL). Multiple LDAP servers may be specified by separating with spaces or commas. LDAP authentication is disabled if this parameter is empty.',
      }), (value) => {
        if (typeof value === 'string') checkUris(value);
      }),
    ),
    [n('BIND_DN')]: setting<string>(
      text({ label: 'LDAP Bind DN', helpText: 'DN (Distinguished Name) of user to bind for all search queries. This is the system user account used to search the directory for other user information.' }),
    ),
    [n('BIND_PASSWORD')]: setting<string>(secret({ label: 'LDAP Bind Password', helpText: 'Password used to bind LDAP user account.' })),
    [n('START_TLS')]: setting<boolean>(boolean({ label: 'LDAP Start TLS', helpText: 'Whether to enable TLS when the LDAP connection is not using SSL.' })),
    [n('CONNECTION_OPTIONS')]: setting<Record<string, number>>(
      shaped(
        {
          default: LDAP_CONNECTION_DEFAULT,
          label: 'LDAP Connection Options',
          helpText:
            'Options for the LDAP connection. OPT_NETWORK_TIMEOUT: seconds to wait for the server to connect and answer (default 10). OPT_X_TLS_REQUIRE_CERT: 0 to skip verifying the server certificate (not recommended). OPT_REFERRALS is accepted for AWX compatibility; referrals are never followed.',
        },
        (value) => {
          if (!isObject(value)) throw new FieldProblem('Expected a dictionary of items.');
          const unknown = Object.keys(value).filter((k) => !CONNECTION_KEYS.includes(k));
          if (unknown.length) throw new FieldProblem(`Invalid connection option(s): ${unknown.join(', ')}. Allowed: ${CONNECTION_KEYS.join(', ')}.`);
          for (const [k, v] of Object.entries(value)) {
            if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 3600) throw new FieldProblem(`${k}: an integer from 0 to 3600 is required.`);
          }
          return value;
        },
      ),
    ),
    [n('CA_CERTIFICATE')]: setting<string>(
      text({
        label: 'LDAP CA Certificate',
        helpText:
          'PEM certificate(s) of the authority that signed the LDAP server certificate, for ldaps:// and Start TLS. Empty: the system trust store is used.',
        pattern: /^(\s*|[\s\S]*-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\s*)$/,
        patternMessage: 'Enter PEM certificates (-----BEGIN CERTIFICATE----- ...), or leave empty.',
      }),
    ),
    [n('USER_SEARCH')]: setting<unknown[]>(
      shaped(
        {
          default: [],
          label: 'LDAP User Search',
          helpText:
            'LDAP search query to find users: [base DN, scope, filter], such as ["OU=Users,DC=example,DC=com", "SCOPE_SUBTREE", "(sAMAccountName=%(user)s)"]. The filter must contain %(user)s. A list of such searches is tried in order (LDAPUnion). Not used when a user DN template is set.',
        },
        (value) => {
          if (!Array.isArray(value)) throw new FieldProblem('Expected a list.');
          if (value.length === 0) return [];
          if (Array.isArray(value[0])) {
            if (value.length > 20) throw new FieldProblem('At most 20 searches.');
            return value.map((v, i) => checkSearch(v, `Search ${i + 1}`, true));
          }
          return checkSearch(value, 'Search', true);
        },
      ),
    ),
    [n('USER_DN_TEMPLATE')]: setting<string>(
      text({
        label: 'LDAP User DN Template',
        helpText:
          'Alternative to user search, if user DNs are all of the same format, such as "uid=%(user)s,OU=Users,DC=example,DC=com". Used instead of the user search when set.',
        pattern: /^(|.*%\(user\)s.*)$/s,
        patternMessage: 'The template must contain %(user)s.',
      }),
    ),
    [n('USER_ATTR_MAP')]: setting<Record<string, string>>(
      shaped(
        {
          default: {},
          label: 'LDAP User Attribute Map',
          helpText: 'Mapping of LDAP user attributes to user fields, such as {"first_name": "givenName", "last_name": "sn", "email": "mail"}.',
        },
        (value) => {
          if (!isObject(value)) throw new FieldProblem('Expected a dictionary of items.');
          for (const [k, v] of Object.entries(value)) {
            if (!['first_name', 'last_name', 'email'].includes(k)) throw new FieldProblem(`Invalid user field "${k}": use first_name, last_name or email.`);
            if (typeof v !== 'string' || !/^[A-Za-z][\w-]{0,127}$/.test(v)) throw new FieldProblem(`${k}: expected an attribute name.`);
          }
          return value;
        },
      ),
    ),
    [n('GROUP_SEARCH')]: setting<unknown[]>(
      shaped(
        {
          default: [],
          label: 'LDAP Group Search',
          helpText:
            'Which groups to search, and how: [base DN, scope, filter], such as ["DC=example,DC=com", "SCOPE_SUBTREE", "(objectClass=group)"]. Needed for the require and deny groups, flags by group and the maps.',
        },
        (value) => {
          if (!Array.isArray(value)) throw new FieldProblem('Expected a list.');
          return value.length === 0 ? [] : checkSearch(value, 'Search', false);
        },
      ),
    ),
    [n('GROUP_TYPE')]: setting<string>(
      choice(LDAP_GROUP_TYPES, {
        default: 'MemberDNGroupType',
        label: 'LDAP Group Type',
        helpText: 'The group type, which says how group memberships are read (see the parameters).',
      }),
    ),
    [n('GROUP_TYPE_PARAMS')]: setting<Record<string, string>>(
      shaped(
        { default: { member_attr: 'member', name_attr: 'cn' }, label: 'LDAP Group Type Parameters', helpText: 'Parameters of the group type: member_attr (MemberDNGroupType and its nested form) and name_attr.' },
        (value) => {
          if (!isObject(value)) throw new FieldProblem('Expected a dictionary of items.');
          for (const [k, v] of Object.entries(value)) {
            if (!['member_attr', 'name_attr'].includes(k)) throw new FieldProblem(`Invalid key "${k}": use member_attr or name_attr.`);
            if (typeof v !== 'string' || !/^[A-Za-z][\w-]{0,127}$/.test(v)) throw new FieldProblem(`${k}: expected an attribute name.`);
          }
          return value;
        },
      ),
    ),
    [n('REQUIRE_GROUP')]: setting<string | null>(
      text({ nullable: true, default: null, label: 'LDAP Require Group', helpText: 'Group DN required to login. If specified, user must be a member of this group to login via LDAP.' }),
    ),
    [n('DENY_GROUP')]: setting<string | null>(
      text({ nullable: true, default: null, label: 'LDAP Deny Group', helpText: 'Group DN denied from login. If specified, user will not be allowed to login if a member of this group.' }),
    ),
    [n('USER_FLAGS_BY_GROUP')]: setting<Record<string, string | string[]>>(
      shaped(
        {
          default: {},
          label: 'LDAP User Flags By Group',
          helpText:
            'Retrieve users from a given group: {"is_superuser": group DN or list, "is_system_auditor": group DN or list}. A flag named here is set on every login: true for members, false otherwise.',
        },
        (value) => {
          if (!isObject(value)) throw new FieldProblem('Expected a dictionary of items.');
          for (const [k, v] of Object.entries(value)) {
            if (!DN_LIST_KEYS.includes(k)) throw new FieldProblem(`Invalid flag "${k}": use is_superuser or is_system_auditor.`);
            const items = typeof v === 'string' ? [v] : v;
            if (!Array.isArray(items) || !items.every((i) => typeof i === 'string' && i.trim() !== '')) throw new FieldProblem(`${k}: expected a group DN or a list of them.`);
          }
          return value;
        },
      ),
    ),
    [n('ORGANIZATION_MAP')]: setting<Record<string, unknown>>(
      organizationMapField({
        regexAllowed: false,
        label: 'LDAP Organization Map',
        helpText:
          'Mapping between organization admins/users and LDAP groups: {"Org": {"admins": group DN(s) or true/false, "users": ..., "auditors": ..., "remove_admins": true, "remove_users": true}}. remove_* (default true, or "remove") takes away a membership the groups no longer give.',
      }),
    ),
    [n('TEAM_MAP')]: setting<Record<string, unknown>>(
      teamMapField({
        regexAllowed: false,
        label: 'LDAP Team Map',
        helpText: 'Mapping between team members (users) and LDAP groups: {"Team": {"organization": "Org", "users": group DN(s) or true/false, "remove": true}}.',
      }),
    ),
  };
}

function ldapCategory(index: number | null): Category {
  const prefix = index === null ? 'AUTH_LDAP_' : `AUTH_LDAP_${index}_`;
  return category({
    slug: index === null ? 'ldap' : `ldap${index}`,
    name: index === null ? 'LDAP' : `LDAP ${index}`,
    description: index === null ? 'The default LDAP server users sign in through.' : `LDAP server ${index}, tried after the default one and those numbered below.`,
    settings: ldapSettings(prefix),
  });
}

/** The settings prefixes of the LDAP servers, in the order they are tried. */
export const LDAP_PREFIXES = ['AUTH_LDAP_', 'AUTH_LDAP_1_', 'AUTH_LDAP_2_', 'AUTH_LDAP_3_', 'AUTH_LDAP_4_', 'AUTH_LDAP_5_'];

export const ldapCategories: Category[] = [ldapCategory(null), ...[1, 2, 3, 4, 5].map(ldapCategory)];
