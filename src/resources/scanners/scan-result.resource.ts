import { boolean, choice, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { createdSince } from '../../api/since-filter.ts';
import { scanResultAccess } from './scan-result-access.ts';
import { SEVERITIES, TOOLS } from '../../scanners/tools.ts';
import type { ScanResultRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;

export const SCAN_STATUSES = ['ok', 'warn', 'blocked', 'timeout', 'error'] as const;

/** What one scanner found at one launch (docs/scanners.md#results-and-the-cache): written by the scanner gate only. */
export const scanResults = defineResource<ScanResultRow>({
  name: 'scan_result',
  table: 'scan_results',
  label: 'Scan Result List',
  description: 'What each scanner found at a launch: its status, a summary and (on the detail) the findings; a blocked launch left no run.',
  fields: {
    scanner: ref('scanner', { ...readOnly, nullable: true }),
    scanner_name: text(readOnly),
    tool: choice(TOOLS, readOnly),
    organization: ref('organization', { ...readOnly, nullable: true }),
    unified_job: integer({ ...readOnly, nullable: true, column: 'unified_job_id', helpText: 'The run launched; empty when the launch was refused.' }),
    unified_job_template: integer({ ...readOnly, nullable: true, column: 'unified_job_template_id' }),
    project: ref('project', { ...readOnly, nullable: true }),
    scm_revision: text(readOnly),
    playbook: text(readOnly),
    status: choice(SCAN_STATUSES, { ...readOnly, helpText: 'ok: nothing at or above the threshold; warn: the run went on with the summary in its explanation; blocked: the launch was refused; timeout and error: the scan did not finish (SCANNER_FAIL_MODE decided).' }),
    severity_threshold: choice(SEVERITIES, readOnly),
    enforcement: choice(['warn', 'enforce'], readOnly),
    summary: text(readOnly),
    finding_count: integer(readOnly),
    blocking_count: integer({ ...readOnly, helpText: 'Findings at or above the threshold.' }),
    cached: boolean({ ...readOnly, helpText: 'Read from the scan cache: the same tool and configuration had scanned this playbook at this revision.' }),
    duration_ms: integer(readOnly),
  },
  operations: { create: false, update: false, delete: false },
  search: ['scanner_name', 'summary', 'playbook'],
  ordering: '-id',
  summaryColumns: ['id', 'status', 'scanner_name'],
  access: scanResultAccess,
  queryFilters: {
    since: createdSince,
  },
  decorate: (row, out) => {
    if (row.unified_job_id) out.related = { ...(out.related as object), unified_job: `/api/v2/unified_jobs/?id=${row.unified_job_id}` };
  },
  // The findings: on the result's own page.
  detail: async (_db, row, out) => {
    out.findings = row.findings;
  },
});
