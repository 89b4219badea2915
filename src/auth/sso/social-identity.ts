/**
 * What an OIDC or social sign-in says about the user, as the identity the shared external-user
 * core applies: the provider's own maps when not empty, else SOCIAL_AUTH_ORGANIZATION_MAP and
 * SOCIAL_AUTH_TEAM_MAP (matched against the username and email), and only the profile fields
 * SOCIAL_AUTH_USER_FIELDS allows.
 */
import type { Services } from '../../api/context.ts';
import type { OrganizationMap, TeamMap } from '../../config/settings/sso-maps.ts';
import type { ExternalIdentity } from '../external/external-user.ts';
import { membershipsFromMaps, userMatcher } from '../external/mapping.ts';

export interface ProviderProfile {
  uid: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
}

const nonEmpty = <T extends object>(map: T | null | undefined): T | null => (map && Object.keys(map).length ? map : null);

/** `prefix`: the middle of the provider's settings (OIDC, GITHUB...). */
export function socialIdentity(services: Services, backend: string, prefix: string, profile: ProviderProfile): ExternalIdentity {
  const get = <T>(name: string) => services.settings.get<T>(name);
  const orgMap = nonEmpty(get<OrganizationMap>(`SOCIAL_AUTH_${prefix}_ORGANIZATION_MAP`)) ?? get<OrganizationMap>('SOCIAL_AUTH_ORGANIZATION_MAP') ?? {};
  const teamMap = nonEmpty(get<TeamMap>(`SOCIAL_AUTH_${prefix}_TEAM_MAP`)) ?? get<TeamMap>('SOCIAL_AUTH_TEAM_MAP') ?? {};
  const allowed = get<string[] | null>('SOCIAL_AUTH_USER_FIELDS');
  const field = (name: 'email' | 'first_name' | 'last_name') => (!allowed || allowed.includes(name) ? profile[name] : undefined);
  return {
    backend,
    uid: profile.uid,
    username: profile.username,
    email: field('email'),
    first_name: field('first_name'),
    last_name: field('last_name'),
    memberships: membershipsFromMaps(orgMap, teamMap, userMatcher({ username: profile.username, email: profile.email })),
    // An empty list: only identities that signed in before (linked to a user) may sign in.
    createUsers: !(allowed && allowed.length === 0),
  };
}
