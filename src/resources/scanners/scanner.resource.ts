import { boolean, choice, choiceList, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { ValidationError } from '../../api/errors.ts';
import { policyAccess } from '../policies/policy-access.ts';
import { configProblem } from '../../scanners/config.ts';
import { ENFORCEMENTS, SCAN_TARGETS, SEVERITIES, TARGETS_OF, TOOLS, toolAvailability, type Tool } from '../../scanners/tools.ts';
import type { ScannerRow } from '../../db/tables.ts';

const MAX_CONFIG = 64 * 1024;

/** The tool's configuration fits the tool, and what it gates is something the tool can read. */
function checkScanner(row: Partial<ScannerRow>): void {
  const tool = row.tool as Tool;
  const errors: Record<string, string[]> = {};
  const problem = configProblem(tool, String(row.config ?? ''));
  if (problem) errors.config = [problem];
  const targets = (row.applies_to ?? []) as string[];
  const unfit = targets.filter((target) => !TARGETS_OF[tool].includes(target as never));
  if (unfit.length) errors.applies_to = [`${tool} cannot scan ${unfit.join(', ')}: it reads project files, which ${unfit.length === 1 ? 'it has' : 'they have'} none of. Choose from ${TARGETS_OF[tool].join(', ')}.`];
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/** What OPTIONS says of the tools: which this node lacks, and how to install them (probed once per process). */
function toolsHelp(): string {
  const missing = Object.entries(toolAvailability()).filter(([, found]) => !found.available);
  const base = 'The scanning tool: ansible-lint and yamllint are installed by setup; checkov is used where it is on the PATH.';
  if (!missing.length) return `${base} This node has all three.`;
  return `${base} Not installed on this node: ${missing.map(([tool, found]) => `${tool} (${found.install})`).join('; ')}; a scan with a missing tool counts as a tool error (SCANNER_FAIL_MODE decides).`;
}

/** IaC scanners run at launch (docs/scanners.md#scanners). */
export const scanners = defineResource<ScannerRow>({
  name: 'scanner',
  table: 'scanners',
  label: 'Scanner List',
  description: 'Scanners (ansible-lint, yamllint, checkov) that read a job\'s project files before it starts, when SCANNER_ENABLED: findings at or above the threshold warn or block the launch.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { default: null, helpText: "The organization whose launches the scanner reads; empty for a global scanner (superusers only)." }),
    tool: choice(TOOLS, { required: true, helpText: toolsHelp() }),
    config: text({ maxLength: MAX_CONFIG, filterable: false, helpText: "The tool's own configuration file as YAML text (.ansible-lint, .yamllint or .checkov.yaml); empty for the tool's defaults." }),
    severity_threshold: choice(SEVERITIES, { default: 'high', helpText: 'Findings at or above this severity warn or block; the tools\' levels are mapped to this scale (docs/scanners.md#severities).' }),
    enforcement: choice(ENFORCEMENTS, { default: 'warn', helpText: 'warn: the run goes on with the findings\' summary in its explanation; enforce: the launch is refused.' }),
    enabled: boolean({ default: true, helpText: 'Disabled scanners are not run.' }),
    applies_to: choiceList(SCAN_TARGETS, { helpText: 'What the scanner reads: jobs launched from their template, jobs a workflow node launched, ad hoc commands (ansible-lint only); empty for all the tool can read.' }),
    timeout: integer({ default: 120, min: 1, max: 3600, helpText: 'Seconds one scan may take; past it the scan counts as timed out (SCANNER_FAIL_MODE decides).' }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name', 'tool', 'enabled', 'enforcement'],
  access: policyAccess,
  queryFilters: {
    // A scanner with no applies_to reads everything its tool can.
    applies_to: (value, alias, params) => `(${alias}.applies_to = '[]'::jsonb OR ${alias}.applies_to @> jsonb_build_array(${params.add(value)}::text))`,
  },
  hooks: {
    beforeWrite: (_tx, _ctx, values, existing) => checkScanner({ ...(existing ?? {}), ...values } as Partial<ScannerRow>),
  },
  decorate: (row, out) => {
    const url = `/api/v2/scanners/${row.id}/`;
    out.related = { ...(out.related as object), enable: `${url}enable/`, disable: `${url}disable/`, scan_results: `/api/v2/scan_results/?scanner=${row.id}` };
  },
});
