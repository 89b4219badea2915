import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { runPath } from '../../resources/run-paths';
import { WorkflowCanvas, type CanvasNode } from './WorkflowCanvas';
import type { RunStatus } from '../runs/run-kinds';
import { GraphLegend } from './GraphLegend';
import { edgesOf, fetchAll, kindLabel, kindOf, nodeName } from './workflow-graph';

const ACTIVE: ReadonlySet<unknown> = new Set<RunStatus>(['new', 'pending', 'waiting', 'running']);
const POLL_MS = 2_000;

interface NodeJob {
  id: number;
  type: string;
  status: string;
}

/** The graph of a workflow job, each node coloured by its run's status and linked to it; polled while the workflow runs. */
export default function WorkflowJobGraph({ job }: { job: ResourceObject<'workflow_jobs'> }) {
  const live = useQuery({
    queryKey: [job.url],
    queryFn: () => http.get<ResourceObject<'workflow_jobs'>>(job.url),
    initialData: job,
    refetchInterval: (query) => (ACTIVE.has(String(query.state.data?.status)) ? POLL_MS : false),
  });
  const status = String(live.data?.status ?? job.status);
  const running = ACTIVE.has(status);
  const nodesUrl = job.related.workflow_nodes ?? `/api/v2/workflow_jobs/${job.id}/workflow_nodes/`;
  // The status is in the key so the nodes are read once more when the workflow ends.
  const nodes = useQuery({
    queryKey: ['workflow-job-graph', nodesUrl, running ? 'running' : status],
    queryFn: () => fetchAll<ResourceObject<'workflow_job_nodes'>>(nodesUrl),
    refetchInterval: running ? POLL_MS : false,
    placeholderData: (previous) => previous,
  });

  const list = useMemo(() => nodes.data ?? [], [nodes.data]);
  const edges = useMemo(() => edgesOf(list), [list]);
  const roots = useMemo(() => list.filter((n) => !edges.some((e) => e.child === n.id)).map((n) => n.id), [list, edges]);
  const canvasNodes: CanvasNode[] = useMemo(
    () =>
      list.map((n) => {
        const run = n.summary_fields?.job as NodeJob | undefined;
        const state = run?.status ?? (n.do_not_run ? 'will not run' : running ? 'not started' : 'did not run');
        return {
          id: n.id,
          card: {
            title: nodeName(n),
            subtitle: `${kindLabel(kindOf(n))} · ${state.replace(/_/g, ' ')}`,
            status: run?.status,
            muted: !run && (n.do_not_run === true || !running),
            href: run ? runPath(run) : undefined,
          },
        };
      }),
    [list, running],
  );

  if (nodes.isPending) return <Loading label="Loading the workflow's nodes" />;
  if (nodes.error) return <ErrorAlert error={nodes.error} title="Could not load the workflow's nodes" />;
  return (
    <div style={{ display: 'flex', flexDirection: 'column', gap: '0.75rem' }} data-workflow-status={status}>
      <GraphLegend />
      <WorkflowCanvas label={`Graph of workflow job ${job.id}`} nodes={canvasNodes} edges={edges} roots={roots} />
    </div>
  );
}
