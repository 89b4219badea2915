import { Alert } from '@patternfly/react-core';
import { ApiError } from '../api/errors';
import { refusalFindings, ScanFindingsTable } from './ScanFindings';

/** The reasons a launch gate gives beside its detail (a quota's 429, a policy's or scanner's 403). */
export function refusalReasons(error: unknown): string[] {
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object') return [];
  const reasons = (error.body as { reasons?: unknown }).reasons;
  return Array.isArray(reasons) ? reasons.map(String).filter(Boolean) : [];
}

function headingOf(error: unknown, title: string): string {
  if (!(error instanceof ApiError)) return title;
  if (error.status === 403) return refusalFindings(error.body).length ? 'Blocked by a scanner' : 'Not allowed';
  if (error.status === 404) return 'Not found';
  // A tenant's quota refuses a launch with its reasons; other 429s are throttles, read from their detail.
  if (error.status === 429 && refusalReasons(error).length) return 'Quota exceeded';
  return title;
}

export function ErrorAlert({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const reasons = refusalReasons(error);
  // A scanner's refusal lists what to fix (docs/scanners.md).
  const findings = error instanceof ApiError ? refusalFindings(error.body) : [];
  return (
    <Alert variant="danger" isInline title={headingOf(error, title)} role="alert">
      {message}
      {reasons.length > 0 && (
        <ul aria-label="Reasons" className="drover-reasons">
          {reasons.map((reason, i) => <li key={i}>{reason}</li>)}
        </ul>
      )}
      {findings.length > 0 && <ScanFindingsTable findings={findings} label="Scanner findings" />}
    </Alert>
  );
}
