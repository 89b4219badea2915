/**
 * Who a SAML answer says the user is: profile fields from the IdP's attributes, the flags of
 * USER_FLAGS_BY_ATTR, and memberships from ORGANIZATION_MAP / TEAM_MAP (matched against username
 * and email) and ORGANIZATION_ATTR / TEAM_ATTR (named by attributes), with AWX's semantics.
 */
import type { SamlIdp, SamlOrganizationAttr, SamlTeamAttr, SamlUserFlags } from '../../config/settings/saml-shapes.ts';
import type { OrganizationMap, TeamMap } from '../../config/settings/sso-maps.ts';
import type { Settings } from '../../config/settings/store.ts';
import type { ExternalIdentity } from '../external/external-user.ts';
import { membershipsFromMaps, userMatcher, type MembershipChanges, type OrganizationMembership, type TeamMembership } from '../external/mapping.ts';
import { SamlRefused, type SamlAnswer } from './saml-answer.ts';

// python-social-auth's defaults, which AWX keeps: the standard LDAP attribute OIDs.
const DEFAULT_ATTRS = {
  attr_user_permanent_id: 'urn:oid:0.9.2342.19200300.100.1.1',
  attr_username: 'urn:oid:0.9.2342.19200300.100.1.1',
  attr_email: 'urn:oid:0.9.2342.19200300.100.1.3',
  attr_first_name: 'urn:oid:2.5.4.42',
  attr_last_name: 'urn:oid:2.5.4.4',
} as const;
/** An attribute name standing for the NameID of the assertion. */
const NAME_ID = 'name_id';
/** The attribute the *_role keys of USER_FLAGS_BY_ATTR look at (AWX's). */
const ROLE_ATTR = 'Role';

/** What the service already has, for "remove" rules: existing organizations and teams. */
export interface ExistingGroups {
  organizations: string[];
  teams: { name: string; organization: string }[];
}

function attribute(answer: SamlAnswer, idp: SamlIdp, key: keyof typeof DEFAULT_ATTRS): string | undefined {
  const name = idp[key] ?? DEFAULT_ATTRS[key];
  if (name === NAME_ID) return answer.nameId || undefined;
  return answer.attributes[name]?.[0];
}

const intersects = (have: readonly string[], wanted: string | string[] | undefined) => [wanted ?? []].flat().some((w) => have.includes(w));

/** AWX's _check_flag: a flag is decided only when USER_FLAGS_BY_ATTR configures it. */
function flag(flags: SamlUserFlags, name: 'superuser' | 'system_auditor', attributes: Record<string, string[]>): boolean | undefined {
  const role = flags[`is_${name}_role`];
  const attr = flags[`is_${name}_attr`];
  if (role === undefined && attr === undefined) return undefined;
  let granted = role !== undefined && intersects(attributes[ROLE_ATTR] ?? [], role);
  const values = attr ? attributes[attr] : undefined;
  if (attr && values?.length) {
    const required = flags[`is_${name}_value`];
    granted = required === undefined || intersects(values, required);
  }
  // With remove_* false a flag is granted but never taken away.
  if (!granted && flags[`remove_${name}s`] === false) return undefined;
  return granted;
}

function organizationsFromAttrs(config: SamlOrganizationAttr, attributes: Record<string, string[]>, existing: ExistingGroups): OrganizationMembership[] {
  const wanted = new Map<string, OrganizationMembership>();
  const entry = (name: string) => wanted.get(name) ?? wanted.set(name, { name }).get(name)!;
  const roles = [
    ['member', config.saml_attr, config.remove],
    ['admin', config.saml_admin_attr, config.remove_admins],
    ['auditor', config.saml_auditor_attr, config.remove_auditors],
  ] as const;
  for (const [role, attr, remove] of roles) {
    // Only roles whose attribute is configured are decided here (AWX would also strip the others).
    if (!attr) continue;
    const named = new Set(attributes[attr] ?? []);
    if (remove ?? true) for (const name of existing.organizations) if (!named.has(name)) entry(name)[role] = false;
    for (const name of named) entry(name)[role] = true;
  }
  return [...wanted.values()];
}

function teamsFromAttrs(config: SamlTeamAttr, attributes: Record<string, string[]>, existing: ExistingGroups): TeamMembership[] {
  if (!config.saml_attr) return [];
  const named = new Set(attributes[config.saml_attr] ?? []);
  const wanted = new Map<string, TeamMembership>();
  const key = (t: { name: string; organization: string }) => JSON.stringify([t.organization, t.name]);
  if (config.remove ?? true) for (const team of existing.teams) wanted.set(key(team), { ...team, member: false });
  for (const { team, team_alias, organization } of config.team_org_map ?? []) {
    const target = { name: team_alias ?? team, organization };
    if (named.has(team)) wanted.set(key(target), { ...target, member: true });
    // A team the attribute does not name is not created only to say the user is not in it.
    else if (existing.teams.some((t) => key(t) === key(target))) wanted.set(key(target), { ...target, member: false });
  }
  return [...wanted.values()];
}

/** Both sources of one membership decide together: granted by either wins, then refused by either. */
function merge<T extends { name: string }>(lists: T[][], keyOf: (item: T) => string, roles: readonly (keyof T)[]): T[] {
  const merged = new Map<string, T>();
  for (const item of lists.flat()) {
    const found = merged.get(keyOf(item));
    if (!found) {
      merged.set(keyOf(item), { ...item });
      continue;
    }
    for (const role of roles) {
      const a = found[role] as boolean | undefined;
      const b = item[role] as boolean | undefined;
      found[role] = (a === true || b === true ? true : a === false || b === false ? false : undefined) as T[keyof T];
    }
  }
  return [...merged.values()];
}

export function memberships(settings: Settings, username: string, email: string | undefined, attributes: Record<string, string[]>, existing: ExistingGroups): MembershipChanges {
  const fromMaps = membershipsFromMaps(
    settings.get<OrganizationMap>('SOCIAL_AUTH_SAML_ORGANIZATION_MAP') ?? {},
    settings.get<TeamMap>('SOCIAL_AUTH_SAML_TEAM_MAP') ?? {},
    userMatcher({ username, email }),
  );
  const orgAttr = settings.get<SamlOrganizationAttr>('SOCIAL_AUTH_SAML_ORGANIZATION_ATTR') ?? {};
  const teamAttr = settings.get<SamlTeamAttr>('SOCIAL_AUTH_SAML_TEAM_ATTR') ?? {};
  return {
    organizations: merge([fromMaps.organizations ?? [], organizationsFromAttrs(orgAttr, attributes, existing)], (o) => o.name, ['member', 'admin', 'auditor']),
    teams: merge([fromMaps.teams ?? [], teamsFromAttrs(teamAttr, attributes, existing)], (t) => JSON.stringify([t.organization, t.name]), ['member']),
  };
}

/** The identity of a checked answer from identity provider `idpName`. */
export function samlIdentity(settings: Settings, idpName: string, idp: SamlIdp, answer: SamlAnswer, existing: ExistingGroups): ExternalIdentity {
  const permanentId = attribute(answer, idp, 'attr_user_permanent_id');
  if (!permanentId) throw new SamlRefused('no_permanent_id', `The identity provider sent no user id (attribute ${idp.attr_user_permanent_id ?? DEFAULT_ATTRS.attr_user_permanent_id}).`);
  const username = attribute(answer, idp, 'attr_username');
  if (!username) throw new SamlRefused('no_username', `The identity provider sent no username (attribute ${idp.attr_username ?? DEFAULT_ATTRS.attr_username}).`);
  const email = attribute(answer, idp, 'attr_email');
  const flags = settings.get<SamlUserFlags>('SOCIAL_AUTH_SAML_USER_FLAGS_BY_ATTR') ?? {};
  return {
    backend: 'saml',
    source: `saml:${idpName}`,
    uid: permanentId,
    username,
    email,
    first_name: attribute(answer, idp, 'attr_first_name'),
    last_name: attribute(answer, idp, 'attr_last_name'),
    flags: {
      is_superuser: flag(flags, 'superuser', answer.attributes),
      is_system_auditor: flag(flags, 'system_auditor', answer.attributes),
    },
    memberships: memberships(settings, username, email, answer.attributes, existing),
  };
}
