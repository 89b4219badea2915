import { useState } from 'react';
import { Link } from 'react-router';
import { EmptyState, EmptyStateBody, Label, Pagination } from '@patternfly/react-core';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';

type Detection = ResourceObject<'drift_detections'>;
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { formatDate } from '../../components/cells';
import { CategoryLabel, SeverityLabel } from './DriftLabels';
import './drift.css';

const PAGE_SIZE = 50;

interface Capture {
  key: string;
  detected: unknown;
  job?: { id: number; name?: string };
  items: Detection[];
}

/** Drift found by one capture (one snapshot after one job) stays together; the list comes newest first. */
function byCapture(items: Detection[]): Capture[] {
  const captures: Capture[] = [];
  for (const item of items) {
    const key = item.snapshot_after ? `snapshot-${String(item.snapshot_after)}` : `at-${String(item.created)}-${String(item.job)}`;
    const last = captures[captures.length - 1];
    if (last?.key === key) last.items.push(item);
    else captures.push({ key, detected: item.created, job: item.summary_fields?.job as Capture['job'], items: [item] });
  }
  return captures;
}

/** A host's drift as a timeline, newest first, grouped by the job whose facts showed it. */
export function DriftTimeline({ host }: { host: ResourceObject<'hosts'> }) {
  const [page, setPage] = useState(1);
  const base = host.related?.drift ?? `${host.url}drift/`;
  const list = usePage<Detection>(withQuery(base, { page, page_size: PAGE_SIZE, order_by: '-created' }), 15_000);
  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorAlert error={list.error} />;
  if (!list.data.count) {
    return (
      <EmptyState titleText="No drift" headingLevel="h2">
        <EmptyStateBody>Drift appears when a job with fact caching finds this host's facts changed since its previous snapshot.</EmptyStateBody>
      </EmptyState>
    );
  }
  return (
    <>
      <ol className="drover-timeline" aria-label={`Drift of ${String(host.name)}`}>
        {byCapture(list.data.results).map((capture) => (
          <li key={capture.key} data-capture={capture.key}>
            <strong>{formatDate(capture.detected)}</strong>
            {capture.job && <> · job <Link to={`/jobs/${capture.job.id}`}>{`${capture.job.id} - ${capture.job.name ?? ''}`}</Link></>}
            <span className="drover-subtle"> · {capture.items.length === 1 ? '1 change' : `${capture.items.length} changes`}</span>
            <ul className="drover-timeline-items">
              {capture.items.map((item) => (
                <li key={item.id} data-id={item.id}>
                  <SeverityLabel severity={item.severity} />
                  <CategoryLabel category={item.category} />
                  <Link to={`/drift_detections/${item.id}`} className="drover-mono">{item.fact_path}</Link>
                  <span className="drover-subtle">{item.summary}</span>
                  {item.acknowledged ? <Label isCompact color="green">acknowledged</Label> : null}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
      {list.data.count > PAGE_SIZE && (
        <Pagination itemCount={list.data.count} page={page} perPage={PAGE_SIZE} perPageOptions={[]} onSetPage={(_e, p) => setPage(p)} isCompact />
      )}
    </>
  );
}
