import { boolean, choice, integer, text } from '../../../api/fields.ts';
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
    OPA_SERVER_URL: setting<string>(
      text({
        default: 'http://127.0.0.1:8181',
        label: 'Policy Engine URL',
        helpText: 'Base address of the OPA-compatible policy engine (a sidecar on this host by default). Policies are uploaded to <url>/v1/policies/ and evaluated at <url>/v1/data/.',
        allowBlank: false,
        pattern: /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i,
        patternMessage: 'Enter a valid URL starting with http:// or https://.',
        maxLength: 2048,
      }),
    ),
    OPA_EVALUATION_TIMEOUT_MS: setting<number>(
      integer({
        default: 2000,
        min: 100,
        max: 30_000,
        label: 'Policy Evaluation Timeout',
        helpText: 'Milliseconds the policy engine has to answer one evaluation (or one upload); past it the engine counts as unreachable.',
      }),
      { unit: 'milliseconds' },
    ),
    OPA_FAIL_MODE: setting<'allow' | 'deny'>(
      choice(
        [
          ['allow', 'Allow: launch when the policy engine cannot be reached (a warning is recorded)'],
          ['deny', 'Deny: refuse the launch when the policy engine cannot be reached'],
        ],
        {
          default: 'allow',
          label: 'Policy Engine Failure Mode',
          helpText: 'What happens when the policy engine is unreachable, times out or fails: allow lets the launch go on with a warning, deny refuses it.',
        },
      ),
    ),
    SCANNER_ENABLED: setting<boolean>(
      boolean({
        default: false,
        label: 'Enable Content Scanning',
        helpText: 'Run the enabled scanners (ansible-lint, yamllint, checkov) on a job\'s project files or an ad hoc command\'s task before it starts (docs/scanners.md).',
      }),
    ),
    SCANNER_FAIL_MODE: setting<'open' | 'closed'>(
      choice(
        [
          ['open', 'Open: run the job when a scan times out or its tool fails (a warning is recorded)'],
          ['closed', 'Closed: refuse the job when an enforcing scanner\'s scan times out or its tool fails'],
        ],
        {
          default: 'open',
          label: 'Scanner Failure Mode',
          helpText: 'What happens when a scan does not finish within its scanner\'s timeout or its tool fails: open lets the job run with a warning, closed refuses it for scanners that enforce.',
        },
      ),
    ),
  },
  aliases: {
    POLICY_ENGINE_EVALUATION_TIMEOUT_MS: { of: 'OPA_EVALUATION_TIMEOUT_MS', source: "The specification's other name" },
  },
});
