import { boolean, choice } from '../../../api/fields.ts';
import { hostOrNetwork, stringList } from '../shapes.ts';
import { category, setting } from '../types.ts';

export const security = category({
  slug: 'security',
  name: 'Security',
  description: 'Limits on outbound requests, policy evaluation and content scanning.',
  settings: {
    OUTBOUND_URL_ALLOWLIST: setting<string[]>(
      stringList({
        label: 'Outbound URL Allow List',
        helpText:
          'Host names (a leading "*." matches every subdomain), IP addresses and CIDR networks that user-supplied URLs (webhooks, notifications, source control) may reach even though they are private, loopback or link-local addresses refused by default.',
        item: hostOrNetwork,
      }),
      { child: { type: 'string' } },
    ),
    OPA_ENABLED: setting<boolean>(
      boolean({
        default: false,
        label: 'Enable Policy Evaluation',
        helpText: 'Evaluate launch-time policies before jobs start. Organizations choose with policy_enforcement whether a violation warns or blocks.',
      }),
    ),
    SCANNER_ENABLED: setting<boolean>(
      boolean({
        default: false,
        label: 'Enable Content Scanning',
        helpText: 'Run the enabled scanners on project content and job inputs before jobs start.',
      }),
    ),
    SCANNER_FAIL_MODE: setting<'open' | 'closed'>(
      choice(
        [
          ['open', 'Open: run the job when a scanner cannot be reached'],
          ['closed', 'Closed: refuse the job when a scanner cannot be reached'],
        ],
        {
          default: 'open',
          label: 'Scanner Failure Mode',
          helpText: 'What happens when a scanner fails or cannot be reached: open lets the job run, closed refuses it.',
        },
      ),
    ),
  },
});
