import type { Row } from '../../db/database.ts';
import type { ListExport } from '../../api/resource.ts';
import { csvCell } from '../../api/csv.ts';

/** The columns of every export, in order: stable names a SIEM rule or a spreadsheet can rely on. */
export const AUDIT_COLUMNS = [
  'id',
  'timestamp',
  'event_type',
  'outcome',
  'actor_id',
  'actor_username',
  'target_type',
  'target_id',
  'target_name',
  'remote_addr',
  'user_agent',
  'auth_method',
  'node',
] as const;

const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v);

/** The fixed columns of one row, timestamps as ISO 8601 UTC. */
function baseRecord(row: Row): Record<string, unknown> {
  return Object.fromEntries(AUDIT_COLUMNS.map((c) => [c, iso(row[c]) ?? null]));
}

/** detail keys become detail_<key>, limited to letters, digits and underscores. */
const detailKey = (key: string) => `detail_${key.replace(/[^A-Za-z0-9_]/g, '_')}`;

/**
 * One flat object per event: the fixed columns, then each detail entry as detail_<key>. Scalars
 * stay as they are; objects and lists are given as JSON text so every value is flat.
 */
export function flatten(row: Row): Record<string, unknown> {
  const out = baseRecord(row);
  const detail = row.detail && typeof row.detail === 'object' ? (row.detail as Record<string, unknown>) : {};
  for (const [key, value] of Object.entries(detail)) {
    const name = detailKey(key);
    if (name in out) continue;
    out[name] = value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
  }
  return out;
}

export const csvExport: ListExport = {
  contentType: 'text/csv; charset=utf-8',
  filename: 'audit_events.csv',
  render(rows) {
    const header = [...AUDIT_COLUMNS, 'detail'];
    const lines = [header.join(',')];
    for (const row of rows) {
      const base = baseRecord(row);
      lines.push([...AUDIT_COLUMNS.map((c) => csvCell(base[c])), csvCell(row.detail ?? {})].join(','));
    }
    return lines.join('\r\n') + '\r\n';
  },
};

/** Newline-delimited JSON for log shippers and SIEMs: one flat object per line. */
export const siemExport: ListExport = {
  contentType: 'application/x-ndjson; charset=utf-8',
  filename: 'audit_events.ndjson',
  render(rows) {
    return rows.map((row) => JSON.stringify(flatten(row)) + '\n').join('');
  },
};
