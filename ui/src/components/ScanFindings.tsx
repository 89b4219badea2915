import { Label, type LabelProps } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import type { FieldOf } from '../api/types';
import { ruleLink, sourceFileLink } from './source-links';

/** One finding of a scanner (docs/scanners.md#results-and-the-cache); a refused launch's also name the scanner. */
export interface ScanFinding {
  rule_id: string;
  severity: string;
  file_path: string;
  line: number | null;
  message: string;
  url: string;
  blocking?: boolean;
  scanner?: string;
  tool?: string;
}

const SEVERITY_COLORS: Record<FieldOf<'scanners', 'severity_threshold'>, LabelProps['color']> = { info: 'grey', low: 'blue', medium: 'yellow', high: 'orange', critical: 'red' };

export function ScanSeverity({ severity }: { severity: unknown }) {
  const text = String(severity ?? '');
  return <Label isCompact color={SEVERITY_COLORS[text as keyof typeof SEVERITY_COLORS] ?? 'grey'} data-severity={text}>{text || '–'}</Label>;
}

/** The findings a scanner's 403 gives beside its reasons, or none. */
export function refusalFindings(body: unknown): ScanFinding[] {
  const findings = body && typeof body === 'object' ? (body as { findings?: unknown }).findings : undefined;
  return Array.isArray(findings) ? findings.filter((f): f is ScanFinding => !!f && typeof f === 'object' && 'rule_id' in f) : [];
}

/** Where the files were scanned: the project's repository and the revision, for links to the files. */
export interface ScannedSource {
  scmUrl?: unknown;
  revision?: unknown;
}

/**
 * Findings as a table: severity, rule (linked to the tool's page of it), message, and file:line,
 * linked to the file at the scanned revision when the repository has a web page (plain text otherwise).
 */
export function ScanFindingsTable({ findings, source, label = 'Findings' }: { findings: ScanFinding[]; source?: ScannedSource; label?: string }) {
  const named = findings.some((f) => f.scanner);
  return (
    <Table aria-label={label} variant="compact" className="drover-findings">
      <Thead>
        <Tr>
          <Th>Severity</Th>
          {named && <Th>Scanner</Th>}
          <Th>Rule</Th>
          <Th>Message</Th>
          <Th>File</Th>
        </Tr>
      </Thead>
      <Tbody>
        {findings.map((f, i) => {
          const rule = ruleLink(f.url);
          const place = `${f.file_path}${f.line ? `:${f.line}` : ''}`;
          const file = source ? sourceFileLink(source.scmUrl, source.revision, f.file_path, f.line) : null;
          return (
            <Tr key={i} data-blocking={f.blocking ? 'true' : undefined}>
              <Td dataLabel="Severity">
                <ScanSeverity severity={f.severity} />
                {f.blocking && <Label isCompact variant="outline" color="red" style={{ marginInlineStart: '0.25rem' }}>blocking</Label>}
              </Td>
              {named && <Td dataLabel="Scanner">{f.scanner}{f.tool ? ` (${f.tool})` : ''}</Td>}
              <Td dataLabel="Rule" modifier="nowrap">{rule ? <a href={rule} target="_blank" rel="noopener noreferrer">{f.rule_id}</a> : f.rule_id}</Td>
              <Td dataLabel="Message">{f.message}</Td>
              <Td dataLabel="File" className="drover-mono" modifier="nowrap">{file ? <a href={file} target="_blank" rel="noopener noreferrer">{place}</a> : place}</Td>
            </Tr>
          );
        })}
      </Tbody>
    </Table>
  );
}
