import { Suspense, lazy } from 'react';
import { Link } from 'react-router';
import { Alert, Flex, FlexItem, PageSection, Title } from '@patternfly/react-core';
import { RoutedTabs } from '../../components/RoutedTabs';
import type { Run } from './run-kinds';
import type { ResourceConfig } from '../../resources/types';
import type { ResourceObject } from '../../api/types';
import { useObject } from '../../hooks/api-hooks';
import { Breadcrumbs } from '../../components/Breadcrumbs';
import { StatusLabel } from '../../components/cells';
import { Loading } from '../../components/Loading';
import { RunDetails } from './RunDetails';
import { runTypeLabel } from './run-types';
import { RunHeader } from './RunHeader';
import { RunActions } from './RunActions';
import { isActive } from './run-kinds';
import RunOutput from './RunOutput';

const WorkflowJobGraph = lazy(() => import('../workflows/WorkflowJobGraph'));
const RunScanTab = lazy(() => import('../scanners/RunScanTab'));

/** The kinds of run scanners read at launch (docs/scanners.md): they have a Scan tab. */
const SCANNED_KINDS = new Set(['job', 'ad_hoc_command']);

/** While a run is active its record is read again this often (host counts, elapsed, status). */
const ACTIVE_REFRESH_MS = 5_000;

/** /<runs>/<id>[/details]: a run's header, cancel and relaunch, its output (or workflow graph) and details. */
export default function RunPage({ object, config }: { object: Run; config: ResourceConfig }) {
  const fresh = useObject<Run>(object.url, isActive(object) ? ACTIVE_REFRESH_MS : false);
  const run = fresh.data ?? object;
  const explanation = [run.job_explanation, run.status === 'error' ? run.result_traceback : ''].filter(Boolean).join('\n');
  return (
    <>
      <PageSection>
        <Breadcrumbs config={config} object={run} />
        <Flex justifyContent={{ default: 'justifyContentSpaceBetween' }} alignItems={{ default: 'alignItemsFlexStart' }} spaceItems={{ default: 'spaceItemsMd' }}>
          <FlexItem>
            <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }}>
              <Title headingLevel="h1">{`${run.id} - ${String(run.name ?? '')}`}</Title>
              <span data-testid="run-status">
                <StatusLabel status={run.status} />
              </span>
              <span className="pf-v6-u-color-200" data-testid="run-type">{runTypeLabel(run.type)}</span>
            </Flex>
          </FlexItem>
          <FlexItem>
            <RunActions run={run} />
          </FlexItem>
        </Flex>
        <div style={{ marginTop: '0.75rem' }}>
          <RunHeader run={run} />
        </div>
        {explanation && (
          <Alert isInline variant={run.status === 'error' || run.status === 'failed' ? 'danger' : 'info'} title="Explanation" style={{ marginTop: '0.75rem' }}>
            <pre className="drover-mono" style={{ whiteSpace: 'pre-wrap', margin: 0 }}>{explanation}</pre>
            {SCANNED_KINDS.has(run.type) && /^Scanner warning:/m.test(explanation) && <Link to={`/${config.key}/${run.id}/scan`}>See the scanners' findings</Link>}
          </Alert>
        )}
      </PageSection>
      <PageSection>
        <RoutedTabs
          base={`/${config.key}/${run.id}`}
          label={`${config.singular} sections`}
          tabs={[
            { key: 'output', label: 'Output', content: () => <Suspense fallback={<Loading />}>{run.type === 'workflow_job' ? <WorkflowJobGraph job={run as ResourceObject<'workflow_jobs'>} /> : <RunOutput run={run} />}</Suspense> },
            { key: 'details', label: 'Details', content: () => <RunDetails run={run} /> },
            ...(SCANNED_KINDS.has(run.type) ? [{ key: 'scan', label: 'Scan', content: () => <Suspense fallback={<Loading />}><RunScanTab run={run} /></Suspense> }] : []),
          ]}
        />
      </PageSection>
    </>
  );
}
