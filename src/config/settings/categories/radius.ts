import { integer, secret, text } from '../../../api/fields.ts';
import { category, setting } from '../types.ts';

const HOST = /^(\[[0-9a-f:.]+\]|[0-9a-f:]*:[0-9a-f:.]+|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$/i;

export const radiusCategory = category({
  slug: 'radius',
  name: 'RADIUS',
  description: 'Sign-in with usernames and passwords checked by a RADIUS server (PAP).',
  settings: {
    RADIUS_SERVER: setting<string>(
      text({
        label: 'RADIUS Server',
        helpText: 'Hostname/IP of RADIUS server. RADIUS authentication is disabled if this setting is empty.',
        maxLength: 253,
        pattern: HOST,
        patternMessage: 'Enter a host name or an IP address.',
      }),
    ),
    RADIUS_PORT: setting<number>(
      integer({ default: 1812, min: 1, max: 65535, label: 'RADIUS Port', helpText: 'Port of RADIUS server.' }),
    ),
    RADIUS_SECRET: setting<string>(
      secret({ label: 'RADIUS Secret', helpText: 'Shared secret for authenticating to RADIUS server.', maxLength: 1024 }),
    ),
    RADIUS_TIMEOUT: setting<number>(
      integer({
        default: 10,
        min: 1,
        max: 60,
        label: 'RADIUS Timeout',
        helpText: 'Seconds to wait for a valid answer from the RADIUS server, the request being sent up to three times within them. A sign-in without an answer in time fails.',
      }),
      { unit: 'seconds' },
    ),
  },
});
