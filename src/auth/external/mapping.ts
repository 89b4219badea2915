/**
 * AWX's organization and team map semantics, turned into the membership changes a sign-in
 * applies. A rule decides one membership: true adds, false or a rule that does not match removes
 * (when the entry's remove flag, true unless said, allows), null or absent leaves it alone.
 */
import { REGEX_RULE, type MapRule, type OrganizationMap, type TeamMap } from '../../config/settings/sso-maps.ts';

/** true: the user holds the membership after sign-in; false: not; undefined: left as it is. */
export type Membership = boolean | undefined;

export interface OrganizationMembership {
  name: string;
  member?: Membership;
  admin?: Membership;
  auditor?: Membership;
}

export interface TeamMembership {
  name: string;
  organization: string;
  member?: Membership;
}

export interface MembershipChanges {
  organizations?: OrganizationMembership[];
  teams?: TeamMembership[];
}

/** Whether one item of a rule (a name, a "/regex/flags", a group DN) matches the user. */
export type Matcher = (item: string) => boolean;

/** The decision of one rule (AWX's _update_m2m_from_expression / _update_m2m_from_groups). */
export function decide(rule: MapRule | undefined, matches: Matcher, remove: boolean): Membership {
  if (rule === undefined || rule === null) return undefined;
  if (rule === true) return true;
  const items = rule === false ? [] : typeof rule === 'string' ? [rule] : rule;
  if (items.some((item) => typeof item === 'string' && item !== '' && matches(item))) return true;
  return remove ? false : undefined;
}

export function organizationChanges(map: OrganizationMap, matches: Matcher): OrganizationMembership[] {
  return Object.entries(map ?? {}).map(([name, entry]) => {
    const remove = entry.remove ?? true;
    return {
      name,
      member: decide(entry.users, matches, entry.remove_users ?? remove),
      admin: decide(entry.admins, matches, entry.remove_admins ?? remove),
      auditor: decide(entry.auditors, matches, entry.remove_auditors ?? remove),
    };
  });
}

export function teamChanges(map: TeamMap, matches: Matcher): TeamMembership[] {
  return Object.entries(map ?? {}).map(([name, entry]) => ({
    name,
    organization: entry.organization,
    member: decide(entry.users, matches, entry.remove ?? true),
  }));
}

/** Both maps for one user. */
export function membershipsFromMaps(orgMap: OrganizationMap, teamMap: TeamMap, matches: Matcher): MembershipChanges {
  return { organizations: organizationChanges(orgMap, matches), teams: teamChanges(teamMap, matches) };
}

/** A "/regex/flags" rule as a RegExp anchored at the start (Python's re.match), or null for a plain string. */
export function ruleRegex(item: string): RegExp | null {
  const parts = REGEX_RULE.exec(item);
  if (!parts) return null;
  try {
    return new RegExp(`^(?:${parts[1]})`, parts[2].replace(/g|y/g, ''));
  } catch {
    return null;
  }
}

/**
 * Social and SAML maps: an item matches when it equals the username or the email, or when it is
 * a "/regex/flags" matching either. Values are capped so a long claim cannot make matching slow.
 */
export function userMatcher(user: { username: string; email?: string | null }): Matcher {
  const values = [user.username, user.email ?? ''].filter((v) => v !== '').map((v) => v.slice(0, 512));
  return (item) => {
    const regex = ruleRegex(item);
    return regex ? values.some((v) => regex.test(v)) : values.includes(item);
  };
}

/** A DN compared as LDAP does for our purposes: case and spaces around separators do not matter. */
export function normalizeDn(dn: string): string {
  return dn
    .split(/(?<!\\),/)
    .map((rdn) =>
      rdn
        .split(/(?<!\\)\+/)
        .map((ava) => {
          const eq = ava.indexOf('=');
          return eq < 0 ? ava.trim().toLowerCase() : `${ava.slice(0, eq).trim().toLowerCase()}=${ava.slice(eq + 1).trim().toLowerCase()}`;
        })
        .join('+'),
    )
    .join(',');
}

/** LDAP maps: an item is a group DN, matching when the user is a member of that group. */
export function groupMatcher(groupDns: readonly string[]): Matcher {
  const groups = new Set(groupDns.map(normalizeDn));
  return (item) => groups.has(normalizeDn(item));
}
