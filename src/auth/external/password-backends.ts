/**
 * Sources that check a username and password themselves (LDAP, RADIUS): the password path
 * (login form, Basic, OAuth2 password grant) asks them, in this order, when the local check fails.
 */
import type { AuthMethod, CurrentUser, Services } from '../../api/context.ts';
import { ApiError } from '../../api/errors.ts';
import { ExternalSignInRefused, recordExternalLoginFailure, signInExternalUser, type ExternalIdentity, type SignInClient } from './external-user.ts';

type SignInServices = Pick<Services, 'db' | 'settings' | 'env'>;

export interface PasswordBackend {
  /** The backend name of its users (ExternalIdentity.backend). */
  name: string;
  /** Whether the settings configure it; an unconfigured backend is not asked. */
  configured(services: SignInServices): boolean;
  /**
   * The identity of good credentials; null when the source refuses them. Throws SourceUnavailable
   * when no server of the source answered in time.
   */
  authenticate(services: SignInServices, username: string, password: string): Promise<ExternalIdentity | null>;
}

/** No server of a source could be reached (or none answered in time): the sign-in fails closed. */
export class SourceUnavailable extends Error {}

export const unavailableMessage = (backend: string) =>
  `Sign-in failed: the ${backend.toUpperCase()} server could not be reached. Try again later or ask an administrator.`;

/**
 * Asks the password backends about credentials the local check refused. A user who exists
 * locally is asked only of his own source (AWX: a local account is never taken over by a
 * directory user of the same name). Answers the signed-in user or null; throws 503 when a
 * source that could have known the user was unreachable and no other accepted him.
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
  const source = existing ? (existing.ldap_dn ? 'ldap' : existing.external_account ?? null) : undefined;
  if (source === null) return null;
  let unreachable: string | null = null;
  for (const backend of backends) {
    if ((source !== undefined && source !== backend.name) || !backend.configured(services)) continue;
    let identity: ExternalIdentity | null;
    try {
      identity = await backend.authenticate(services, username, password);
    } catch (err) {
      if (!(err instanceof SourceUnavailable)) throw err;
      unreachable ??= backend.name;
      await recordExternalLoginFailure(services, backend.name, username, client, 'source_unavailable');
      continue;
    }
    if (!identity) continue;
    try {
      return await signInExternalUser(services, identity, client, { authMethod });
    } catch (err) {
      if (err instanceof ExternalSignInRefused) return null;
      throw err;
    }
  }
  if (unreachable) throw new ApiError(503, { detail: unavailableMessage(unreachable) });
  return null;
}
