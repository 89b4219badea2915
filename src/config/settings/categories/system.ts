import { FieldProblem, boolean, integer, text } from '../../../api/fields.ts';
import { hostOrNetwork, stringList } from '../shapes.ts';
import { category, setting } from '../types.ts';
import { awxSystemSettings } from './system-awx.ts';

const URL_BASE = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i;

const urlBase = text({
  label: 'Base URL of the service host',
  helpText:
    'This setting is used by services like notifications to render a valid url to the service host. It is the address users reach the service at, for example https://drover.example.com.',
  pattern: URL_BASE,
  patternMessage: 'Enter a valid URL starting with http:// or https://.',
  maxLength: 2048,
});

export const system = category({
  slug: 'system',
  name: 'System',
  description: 'Service-wide behaviour: activity stream, visibility of users, proxies, analytics and the installation.',
  settings: {
    ACTIVITY_STREAM_ENABLED: setting<boolean>(
      boolean({
        default: true,
        label: 'Enable Activity Stream',
        helpText: 'Enable capturing activity for the activity stream.',
      }),
    ),
    ORG_ADMINS_CAN_SEE_ALL_USERS: setting<boolean>(
      boolean({
        default: true,
        label: 'All Users Visible to Organization Admins',
        helpText: 'Controls whether any Organization Admin can view all users and teams, even those not associated with their Organization.',
      }),
    ),
    MANAGE_ORGANIZATION_AUTH: setting<boolean>(
      boolean({
        default: true,
        label: 'Organization Admins Can Manage Users and Teams',
        helpText:
          'Controls whether any Organization Admin has the privileges to create and manage users and teams. You may want to disable this ability if you are using an LDAP or SAML integration.',
      }),
    ),
    SVC_URL_BASE: setting<string>({
      ...urlBase,
      // Stored without trailing slashes so paths can be appended.
      parse: (value) => (urlBase.parse(value) as string).replace(/\/+$/, ''),
    }),
    REMOTE_HOST_HEADERS: setting<string[]>(
      stringList({
        default: ['REMOTE_ADDR', 'REMOTE_HOST'],
        label: 'Remote Host Headers',
        helpText:
          'HTTP headers and meta keys to search to determine remote host name or IP. Add additional items to this list, such as "HTTP_X_FORWARDED_FOR", if behind a reverse proxy.',
        item: (header) => {
          if (!/^[A-Za-z0-9_-]+$/.test(header)) throw new FieldProblem(`"${header}" is not a valid header or meta key name.`);
        },
      }),
      { child: { type: 'string' } },
    ),
    PROXY_IP_ALLOWED_LIST: setting<string[]>(
      stringList({
        label: 'Proxy IP Allowed List',
        helpText:
          'If the service is behind a reverse proxy/load balancer, use this setting to configure the proxy IP addresses from which the service should trust custom REMOTE_HOST_HEADERS header values. If this setting is an empty list (the default), the headers specified by REMOTE_HOST_HEADERS will be trusted unconditionally.',
        item: hostOrNetwork,
      }),
      { child: { type: 'string' } },
    ),
    DEFAULT_EXECUTION_ENVIRONMENT: setting<number | null>(
      integer({
        nullable: true,
        min: 1,
        label: 'Global default execution environment',
        helpText: 'The Execution Environment to be used when one has not been configured for a job template.',
      }),
    ),
    LIST_QUERY_TIMEOUT: setting<number>(
      integer({
        default: 5,
        min: 1,
        max: 300,
        label: 'List Query Timeout',
        helpText:
          'Longest time in seconds the database may spend on one list request (its filters, search and ordering). A request that takes longer is stopped and answered 400. On the embedded database, stopping it restarts the database, which holds up other requests for about a second.',
      }),
      { unit: 'seconds' },
    ),
    CLUSTER_NODE_HEARTBEAT_PERIOD: setting<number>(
      integer({
        default: 30,
        min: 1,
        max: 3600,
        label: 'Cluster Node Heartbeat Period',
        helpText:
          'Seconds between two heartbeats of a node: each node records its instance (capacity, errors) this often, and looks for nodes that stopped sending theirs. A change applies from each node\'s next heartbeat.',
      }),
      { unit: 'seconds' },
    ),
    CLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE: setting<number>(
      integer({
        default: 2,
        min: 1,
        max: 100,
        label: 'Cluster Node Missed Heartbeat Tolerance',
        helpText:
          'How many heartbeat periods a node may stay silent before the other nodes mark it unavailable (capacity 0), queue its unstarted runs again elsewhere and fail its running runs.',
      }),
    ),
    ...awxSystemSettings,
  },
  aliases: { TOWER_URL_BASE: 'SVC_URL_BASE' },
  async validate(value, db) {
    // Checked once execution environments exist; until then any id is kept for later.
    const id = value('DEFAULT_EXECUTION_ENVIRONMENT');
    if (id === null) return null;
    const [{ any }] = await db.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM execution_environments) AS any');
    if (!any) return null;
    const rows = await db.query('SELECT 1 FROM execution_environments WHERE id = $1', [id]);
    return rows.length ? null : { DEFAULT_EXECUTION_ENVIRONMENT: [`Invalid pk "${String(id)}" - object does not exist.`] };
  },
});
