/** RADIUS as a password backend: the username and password go to RADIUS_SERVER (PAP). */
import type { Services } from '../../api/context.ts';
import { signInExternalUser } from '../external/external-user.ts';
import type { PasswordBackend } from '../password-backends.ts';
import { radiusAuthenticate, RadiusUnavailable } from './radius-client.ts';

export const RADIUS_BACKEND = 'radius';

export const radiusBackend: PasswordBackend = {
  name: RADIUS_BACKEND,
  enabled: (settings) => String(settings.get<string>('RADIUS_SERVER') ?? '') !== '',
  async authenticate(services, username, password, client, options) {
    const settings = services.settings;
    let answer;
    try {
      answer = await radiusAuthenticate(
        {
          host: settings.get<string>('RADIUS_SERVER'),
          port: settings.get<number>('RADIUS_PORT'),
          secret: settings.get<string>('RADIUS_SECRET') ?? '',
          timeoutMs: settings.get<number>('RADIUS_TIMEOUT') * 1000,
        },
        username,
        password,
      );
    } catch (err) {
      if (err instanceof RadiusUnavailable) return { unavailable: 'The RADIUS server did not answer. Try again later or ask an administrator.' };
      throw err;
    }
    if (!answer.accepted) return null;
    return { user: await signInExternalUser(services as Services, { backend: RADIUS_BACKEND, uid: username, username }, client, options) };
  },
};
