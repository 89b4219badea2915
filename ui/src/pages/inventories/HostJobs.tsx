import { Link, useSearchParams } from 'react-router';
import { EmptyState, EmptyStateBody, Pagination, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { StatusLabel, formatDate } from '../../components/cells';

interface SummaryJob {
  id: number;
  name?: string;
  status?: string;
  failed?: boolean;
}

const COUNTS = ['ok', 'changed', 'failures', 'dark', 'skipped'] as const;
const COUNT_LABELS: Record<(typeof COUNTS)[number], string> = { ok: 'OK', changed: 'Changed', failures: 'Failed', dark: 'Unreachable', skipped: 'Skipped' };

/** The playbook runs that touched a host, newest first, with what each did on it. */
export default function HostJobs({ object }: { object: ResourceObject<'hosts'> }) {
  const [params, setParams] = useSearchParams();
  const pageNumber = Number(params.get('page') ?? 1);
  const url = object.related?.job_host_summaries ? withQuery(object.related.job_host_summaries, { page: pageNumber, page_size: 20, order_by: '-id' }) : undefined;
  const page = usePage(url, 10_000);
  const rows = page.data?.results ?? [];
  if (page.isPending) return <Loading />;
  return (
    <>
      <ErrorAlert error={page.error} />
      {rows.length === 0 && !page.error ? (
        <EmptyState titleText="No runs yet" headingLevel="h2">
          <EmptyStateBody>No playbook run has touched this host.</EmptyStateBody>
        </EmptyState>
      ) : (
        <>
          <Toolbar>
            <ToolbarContent>
              <ToolbarItem variant="pagination" align={{ default: 'alignEnd' }}>
                <Pagination itemCount={page.data?.count ?? 0} page={pageNumber} perPage={20} perPageOptions={[]} onSetPage={(_e, p) => setParams({ page: String(p) })} isCompact />
              </ToolbarItem>
            </ToolbarContent>
          </Toolbar>
          <Table aria-label={`Runs of ${String(object.name)}`} variant="compact">
            <Thead>
              <Tr>
                <Th>Job</Th>
                <Th>Status</Th>
                {COUNTS.map((c) => <Th key={c} className="drover-hide-narrow">{COUNT_LABELS[c]}</Th>)}
                <Th className="drover-hide-narrow">Finished</Th>
              </Tr>
            </Thead>
            <Tbody>
              {rows.map((summary) => {
                const job = summary.summary_fields?.job as SummaryJob | undefined;
                const jobId = job?.id ?? (summary.job as number);
                return (
                  <Tr key={summary.id}>
                    <Td dataLabel="Job"><Link to={`/jobs/${jobId}`}>{`${jobId} - ${job?.name ?? ''}`}</Link></Td>
                    <Td dataLabel="Status"><StatusLabel status={job?.status ?? (summary.failed ? 'failed' : 'successful')} /></Td>
                    {COUNTS.map((c) => <Td key={c} dataLabel={COUNT_LABELS[c]} className="drover-hide-narrow">{String(summary[c] ?? 0)}</Td>)}
                    <Td dataLabel="Finished" className="drover-hide-narrow">{formatDate(summary.modified)}</Td>
                  </Tr>
                );
              })}
            </Tbody>
          </Table>
        </>
      )}
    </>
  );
}
