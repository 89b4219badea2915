import { useState } from 'react';
import { Link } from 'react-router';
import { Card, CardBody, CardHeader, CardTitle, FormSelect, FormSelectOption, Gallery, Grid, GridItem, PageSection, Title, Flex } from '@patternfly/react-core';
import { useQuery } from '@tanstack/react-query';
import { api, must } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import type { paths } from '../../api/schema';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { StatusLabel, formatDate } from '../../components/cells';
import { runPath, templatePath } from '../../resources/run-paths';
import { JobsChart } from './JobsChart';

type GraphQuery = NonNullable<paths['/api/v2/dashboard/graphs/jobs/']['get']['parameters']['query']>;
type Period = NonNullable<GraphQuery['period']>;
type JobType = NonNullable<GraphQuery['job_type']>;

function CountCard({ label, value, to, failed, failedTo, failedLabel }: { label: string; value: number; to: string; failed?: number; failedTo?: string; failedLabel?: string }) {
  return (
    <Card isCompact>
      <CardHeader>
        <CardTitle>
          <Link to={to}>{label}</Link>
        </CardTitle>
      </CardHeader>
      <CardBody>
        <Title headingLevel="h3" size="2xl" aria-label={`${label}: ${value}`}>{value}</Title>
        {failed !== undefined && (
          <Link to={failedTo ?? to} style={failed ? { color: 'var(--pf-t--global--text--color--status--danger--default)' } : undefined}>
            {failed} {failedLabel ?? 'failed'}
          </Link>
        )}
      </CardBody>
    </Card>
  );
}

/** A run, or a template with its last run, as the unified lists serialize them. */
type ListedRun = ResourceObject<'unified_jobs'> | ResourceObject<'unified_job_templates'>;

function RunList({ title, url, empty }: { title: string; url: string; empty: string }) {
  const page = usePage<ListedRun>(url, 5_000);
  return (
    <Card>
      <CardHeader><CardTitle>{title}</CardTitle></CardHeader>
      <CardBody>
        <ErrorAlert error={page.error} />
        {page.data?.results.length ? (
          <ul style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label={title}>
            {page.data.results.map((o: ListedRun) => (
              <li key={`${o.type}-${o.id}`} style={{ display: 'flex', gap: '0.5rem', justifyContent: 'space-between', padding: '0.25rem 0' }}>
                <Link to={o.type.endsWith('template') || o.type === 'project' || o.type === 'inventory_source' ? templatePath(o) : runPath(o)}>{`${o.type.endsWith('template') ? '' : `${o.id} - `}${String(o.name)}`}</Link>
                <span className="drover-nowrap">
                  <StatusLabel status={o.status} /> <span className="drover-hide-narrow">{formatDate(o.finished ?? o.last_job_run ?? o.started ?? o.created)}</span>
                </span>
              </li>
            ))}
          </ul>
        ) : page.isPending ? <Loading /> : <p>{empty}</p>}
      </CardBody>
    </Card>
  );
}

export default function DashboardPage() {
  const [period, setPeriod] = useState<Period>('month');
  const [jobType, setJobType] = useState<JobType>('all');
  const counts = useQuery({ queryKey: ['/api/v2/dashboard/'], queryFn: () => must(api.GET('/api/v2/dashboard/')), refetchInterval: 15_000 });
  const graph = useQuery({
    queryKey: ['/api/v2/dashboard/graphs/jobs/', period, jobType],
    queryFn: () => must(api.GET('/api/v2/dashboard/graphs/jobs/', { params: { query: { period, job_type: jobType } } })),
    refetchInterval: 30_000,
  });
  const c = counts.data;
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">Dashboard</Title>
      </PageSection>
      <PageSection>
        <ErrorAlert error={counts.error} />
        {c ? (
          <Gallery hasGutter minWidths={{ default: '160px' }} aria-label="Counts">
            <CountCard label="Hosts" value={c.hosts.total} to="/hosts" failed={c.hosts.failed} failedTo="/hosts?has_active_failures=true" failedLabel="failed hosts" />
            <CountCard label="Inventories" value={c.inventories.total} to="/inventories" failed={c.inventories.inventory_failed} failedLabel="sync failures" />
            <CountCard label="Projects" value={c.projects.total} to="/projects" failed={c.projects.failed} failedTo="/projects?last_job_failed=true" failedLabel="sync failures" />
            <CountCard label="Templates" value={c.job_templates.total} to="/job_templates" />
            <CountCard label="Organizations" value={c.organizations.total} to="/organizations" />
            <CountCard label="Users" value={c.users.total} to="/users" />
          </Gallery>
        ) : counts.isPending ? <Loading /> : null}
      </PageSection>
      <PageSection>
        <Card>
          <CardHeader>
            <Flex justifyContent={{ default: 'justifyContentSpaceBetween' }} style={{ width: '100%' }}>
              <CardTitle>Job status</CardTitle>
              <Flex flexWrap={{ default: 'wrap' }} spaceItems={{ default: 'spaceItemsSm' }} alignItems={{ default: 'alignItemsCenter' }}>
                <Link to="/analytics">Analytics</Link>
                <FormSelect aria-label="Period" value={period} onChange={(_e, v) => setPeriod(v as Period)} style={{ width: 'auto' }}>
                  <FormSelectOption value="month" label="Past month" />
                  <FormSelectOption value="two_weeks" label="Past two weeks" />
                  <FormSelectOption value="week" label="Past week" />
                  <FormSelectOption value="day" label="Past 24 hours" />
                </FormSelect>
                <FormSelect aria-label="Job type" value={jobType} onChange={(_e, v) => setJobType(v as JobType)} style={{ width: 'auto' }}>
                  <FormSelectOption value="all" label="All job types" />
                  <FormSelectOption value="playbook_run" label="Playbook runs" />
                  <FormSelectOption value="scm_update" label="Project syncs" />
                  <FormSelectOption value="inv_sync" label="Inventory syncs" />
                </FormSelect>
              </Flex>
            </Flex>
          </CardHeader>
          <CardBody>
            <ErrorAlert error={graph.error} />
            {graph.data ? <JobsChart jobs={graph.data.jobs} hourly={period === 'day'} /> : <Loading />}
          </CardBody>
        </Card>
      </PageSection>
      <PageSection>
        <Grid hasGutter md={4}>
          <GridItem><RunList title="Running jobs" url="/api/v2/unified_jobs/?status__in=pending,waiting,running&order_by=-id&page_size=5" empty="Nothing is running." /></GridItem>
          <GridItem><RunList title="Recent jobs" url="/api/v2/unified_jobs/?finished__isnull=false&order_by=-finished&page_size=5" empty="No job has run yet. Launch a template to see it here." /></GridItem>
          <GridItem><RunList title="Recent templates" url="/api/v2/unified_job_templates/?type=job_template,workflow_job_template&order_by=-last_job_run&page_size=5" empty="No templates yet. Add one under Templates." /></GridItem>
        </Grid>
      </PageSection>
    </>
  );
}
