/** The drift endpoints beyond the generic lists, and the shapes the drift pages read. */
import { http, withQuery } from '../../api/client';
import { enumValues } from '../../api/enums';
import type { ApiBody, FieldOf } from '../../api/types';

export type DriftCategory = FieldOf<'drift_detections', 'category'>;
export type DriftSeverity = FieldOf<'drift_detections', 'severity'>;
export type DiffType = FieldOf<'drift_detections', 'diff_type'>;

/** Most severe first. */
export const SEVERITIES = enumValues<DriftSeverity>()(['critical', 'high', 'medium', 'low']);

export interface DriftDetail {
  before: unknown;
  after: unknown;
  diff_type: DiffType;
  truncated?: boolean;
}

export interface DriftSummary {
  days: number;
  total: number;
  unacknowledged: number;
  by_category: Record<string, number>;
  by_severity: Record<string, number>;
  total_hosts_with_drift: number;
}

export interface FactDiff {
  fact_path: string;
  category: DriftCategory;
  severity: DriftSeverity;
  summary: string;
  detail: DriftDetail;
}

export interface Comparison {
  snapshot_a: number;
  snapshot_b: number;
  diff_count: number;
  diffs: FactDiff[];
}

const DETECTIONS = '/api/v2/drift_detections/';

export const summaryUrl = (days: number) => withQuery(`${DETECTIONS}summary/`, { days });
export const fetchSummary = (days: number) => http.get<DriftSummary>(summaryUrl(days));

export const compareSnapshots = (snapshotA: number, snapshotB: number) =>
  http.post<Comparison>(`${DETECTIONS}compare/`, { snapshot_a: snapshotA, snapshot_b: snapshotB } satisfies ApiBody<'/api/v2/drift_detections/compare/', 'post'>);

/** The CSV download of the drift the filters select (dates as YYYY-MM-DD, both days included). */
export const exportUrl = (filters: Record<string, string | null | undefined>) => withQuery(`${DETECTIONS}export/`, filters);

/** The filters of the drift list the export carries over (the API's export takes these and a date range). */
export const EXPORTED_FILTERS = ['host', 'inventory', 'category', 'severity'] as const;
