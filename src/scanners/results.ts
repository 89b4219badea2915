/** The scan cache and the scan results a launch leaves (docs/scanners.md#results-and-the-cache). */
import type { Queryable } from '../db/database.ts';
import type { Finding } from './findings.ts';
import type { CacheKey } from './subject.ts';

/** Findings kept with one result; a report longer than this keeps its first ones and says how many there were. */
export const MAX_KEPT_FINDINGS = 1000;

export interface CachedScan {
  findings: Finding[];
  duration_ms: number;
}

export async function cachedScan(q: Queryable, tool: string, digest: string, key: CacheKey): Promise<CachedScan | null> {
  const [row] = await q.query<CachedScan>(
    'SELECT findings, duration_ms FROM scan_cache WHERE tool = $1 AND config_digest = $2 AND project_id = $3 AND scm_revision = $4 AND playbook = $5',
    [tool, digest, key.project_id, key.scm_revision, key.playbook],
  );
  return row ?? null;
}

export async function cacheScan(q: Queryable, tool: string, digest: string, key: CacheKey, scan: CachedScan): Promise<void> {
  await q.query(
    `INSERT INTO scan_cache (tool, config_digest, project_id, scm_revision, playbook, findings, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tool, config_digest, project_id, scm_revision, playbook) DO UPDATE SET findings = EXCLUDED.findings, duration_ms = EXCLUDED.duration_ms, created = now()`,
    [tool, digest, key.project_id, key.scm_revision, key.playbook, JSON.stringify(scan.findings.slice(0, MAX_KEPT_FINDINGS)), scan.duration_ms],
  );
}

export interface ScanResultRecord {
  scanner_id: number;
  scanner_name: string;
  tool: string;
  organization_id: number | null;
  unified_job_id: number | null;
  unified_job_template_id: number | null;
  project_id: number | null;
  scm_revision: string;
  playbook: string;
  status: 'ok' | 'warn' | 'blocked' | 'timeout' | 'error';
  severity_threshold: string;
  enforcement: string;
  summary: string;
  findings: (Finding & { blocking: boolean })[];
  finding_count: number;
  blocking_count: number;
  cached: boolean;
  duration_ms: number;
  user_id: number | null;
}

const COLUMNS = [
  'scanner_id', 'scanner_name', 'tool', 'organization_id', 'unified_job_id', 'unified_job_template_id', 'project_id', 'scm_revision', 'playbook',
  'status', 'severity_threshold', 'enforcement', 'summary', 'findings', 'finding_count', 'blocking_count', 'cached', 'duration_ms',
] as const;

/** One statement for every scanner asked at a launch; a refused launch's results keep no run (it was rolled back). */
export async function recordScanResults(q: Queryable, records: readonly ScanResultRecord[]): Promise<void> {
  if (!records.length) return;
  const params: unknown[] = [];
  const rows = records.map((record) => {
    const values = COLUMNS.map((column) => {
      if (column === 'findings') return JSON.stringify(record.findings.slice(0, MAX_KEPT_FINDINGS));
      return record[column];
    });
    const at = params.length;
    params.push(...values, record.user_id, record.user_id);
    const placeholders = values.map((_, i) => (COLUMNS[i] === 'unified_job_id' ? `(SELECT id FROM unified_jobs WHERE id = $${at + i + 1}::int)` : `$${at + i + 1}`));
    return `(${placeholders.join(', ')}, $${at + values.length + 1}, $${at + values.length + 2})`;
  });
  await q.query(`INSERT INTO scan_results (${COLUMNS.join(', ')}, created_by_id, modified_by_id) VALUES ${rows.join(', ')}`, params);
}
