/**
 * The sources a username and password are checked against after the local users, in order
 * (LDAP, then RADIUS): the first that accepts them signs the user in. A source that cannot be
 * reached counts as a refusal (fail closed), with a message for the user.
 */
import type { CurrentUser, Services, AuthMethod } from '../api/context.ts';
import type { Settings } from '../config/settings/store.ts';
import { ExternalSignInRefused } from './external/external-user.ts';
import { radiusBackend } from './radius/radius-backend.ts';

export type BackendAnswer = { user: CurrentUser } | { unavailable: string } | null;

export interface PasswordBackend {
  name: string;
  enabled(settings: Pick<Settings, 'get'>): boolean;
  /** Null when the source does not accept the credentials. */
  authenticate(
    services: Pick<Services, 'db' | 'settings' | 'env'>,
    username: string,
    password: string,
    client: { remoteAddr: string; userAgent: string },
    options: { authMethod?: AuthMethod | null },
  ): Promise<BackendAnswer>;
}

export const PASSWORD_BACKENDS: readonly PasswordBackend[] = [radiusBackend];

export type ExternalPasswordResult = { user: CurrentUser } | { invalid: true; message?: string };

/** Tries each enabled backend in order; a refusal of the shared core (a local user's name, say) is a refusal. */
export async function externalPasswordLogin(
  services: Pick<Services, 'db' | 'settings' | 'env'>,
  username: string,
  password: string,
  client: { remoteAddr: string; userAgent: string },
  options: { authMethod?: AuthMethod | null } = {},
): Promise<ExternalPasswordResult> {
  let message: string | undefined;
  for (const backend of PASSWORD_BACKENDS) {
    if (!backend.enabled(services.settings)) continue;
    try {
      const answer = await backend.authenticate(services, username, password, client, options);
      if (answer && 'user' in answer) return answer;
      if (answer && 'unavailable' in answer) message ??= answer.unavailable;
    } catch (err) {
      if (err instanceof ExternalSignInRefused) return { invalid: true, message: err.message };
      throw err;
    }
  }
  return { invalid: true, message };
}
