/** The approval an approval node starts (launch_type workflow): pending, due to time out after the template's timeout; its "running" notifications queued. */

import type { Launcher } from '../../runs/launch.ts';
import type { WorkflowNodeLaunch } from '../../runs/run-kind.ts';
import type { WorkflowApprovalTemplateRow } from '../../db/tables.ts';
import { WORKFLOW_APPROVAL } from '../workflow-job/workflow-job-kind-ref.ts';
import { notifyApproval } from './notify.ts';

export const approvalLauncher: Launcher<Pick<WorkflowNodeLaunch, 'workflowJob'>, WorkflowApprovalTemplateRow> = {
  kind: WORKFLOW_APPROVAL,
  async plan(tx, _ctx, template, { workflowJob }) {
    const [expires] = template!.timeout > 0 ? await tx.query<{ at: Date | null }>(`SELECT now() + make_interval(secs => $1) AS at`, [template!.timeout]) : [{ at: null }];
    return {
      values: {
        name: template!.name,
        description: template!.description,
        unified_job_template_id: template!.id,
        workflow_approval_template_id: template!.id,
        workflow_job_template_id: workflowJob.workflow_job_template_id,
        organization_id: workflowJob.organization_id,
        launch_type: 'workflow',
        timeout: template!.timeout,
        approval_expires: expires.at,
        task_impact: 0,
      },
      // The approval waits from now on (pending is its running state): "running" is sent.
      link: (tx, approval) => notifyApproval(tx, approval, 'running', workflowJob.id),
    };
  },
};
