/** RADIUS as a password backend: the username and password go to RADIUS_SERVER (PAP). */
import { SourceUnavailable, type PasswordBackend } from '../external/password-backends.ts';
import { radiusAuthenticate, RadiusUnavailable } from './radius-client.ts';

export const RADIUS_BACKEND = 'radius';

export const radiusBackend: PasswordBackend = {
  name: RADIUS_BACKEND,
  configured: (services) => String(services.settings.get<string>('RADIUS_SERVER') ?? '') !== '',
  async authenticate(services, username, password) {
    const settings = services.settings;
    try {
      const answer = await radiusAuthenticate(
        {
          host: settings.get<string>('RADIUS_SERVER'),
          port: settings.get<number>('RADIUS_PORT'),
          secret: settings.get<string>('RADIUS_SECRET') ?? '',
          timeoutMs: settings.get<number>('RADIUS_TIMEOUT') * 1000,
        },
        username,
        password,
      );
      return answer.accepted ? { backend: RADIUS_BACKEND, uid: username, username } : null;
    } catch (err) {
      if (err instanceof RadiusUnavailable) throw new SourceUnavailable(err.message);
      throw err;
    }
  },
};
