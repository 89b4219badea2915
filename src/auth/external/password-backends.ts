/**
 * Sources that check a username and password themselves (LDAP, RADIUS): the password path
 * (login form, Basic, OAuth2 password grant) asks them, in this order, when the local check fails.
 */
import type { AuthMethod, CurrentUser, Services } from '../../api/context.ts';
import { ApiError } from '../../api/errors.ts';
import { ExternalSignInRefused, IdentityConflict, recordExternalLoginFailure, signInExternalUser, type ExternalIdentity, type SignInClient } from './external-user.ts';

type SignInServices = Pick<Services, 'db' | 'settings' | 'env' | 'resources' | 'caches'>;

export interface PasswordBackend {
  /** The backend name of its users (ExternalIdentity.backend). */
  name: string;
  /** Whether the settings configure it; an unconfigured backend is not asked. */
  configured(services: SignInServices): boolean;
  /**
   * The identity of good credentials; null when the source does not know them (no such user,
   * wrong password); `refused` with a reason for the audit log when it knows them but a rule
   * refuses the sign-in (a required or denied group). Throws SourceUnavailable when no server of
   * the source answered in time.
   */
  authenticate(services: SignInServices, username: string, password: string): Promise<ExternalIdentity | { refused: string } | null>;
}

/** No server of a source could be reached (or none answered in time): the sign-in fails closed. */
export class SourceUnavailable extends Error {}

export const unavailableMessage = (backend: string) =>
  `Sign-in failed: the ${backend.toUpperCase()} server could not be reached. Try again later or ask an administrator.`;

/**
 * Asks the password backends about credentials the local check refused. The password of a
 * local user goes to no backend (AWX: a local account is never taken over by a directory user
 * of the same name). Any other username is asked of each backend in turn; the one that accepts
 * the credentials signs in the user linked to its identity (external-user.ts), which need not
 * be the user of that name. Answers the signed-in user or null; throws 403 with the reason when
 * the identity's username belongs to another account (IdentityConflict), and 503 when a source
 * that could have known the user was unreachable and no other accepted him.
 */
export async function externalPasswordLogin(
  backends: readonly PasswordBackend[],
  services: SignInServices,
  username: string,
  password: string,
  client: SignInClient,
  existing: { ldap_dn?: string | null; external_account?: string | null } | null,
  authMethod: AuthMethod | null,
): Promise<CurrentUser | null> {
  if (password === '') return null;
  if (existing && !existing.ldap_dn && !existing.external_account) return null;
  let unreachable: string | null = null;
  for (const backend of backends) {
    if (!backend.configured(services)) continue;
    let identity: ExternalIdentity | { refused: string } | null;
    try {
      identity = await backend.authenticate(services, username, password);
    } catch (err) {
      if (!(err instanceof SourceUnavailable)) throw err;
      unreachable ??= backend.name;
      await recordExternalLoginFailure(services, backend.name, username, client, 'source_unavailable');
      continue;
    }
    if (!identity) continue;
    if ('refused' in identity) {
      await recordExternalLoginFailure(services, backend.name, username, client, identity.refused);
      continue;
    }
    try {
      return await signInExternalUser(services, identity, client, { authMethod });
    } catch (err) {
      // The source knew the credentials: its user is told why he cannot sign in.
      if (err instanceof IdentityConflict) throw err;
      if (err instanceof ExternalSignInRefused) return null;
      throw err;
    }
  }
  if (unreachable) throw new ApiError(503, { detail: unavailableMessage(unreachable) });
  return null;
}
