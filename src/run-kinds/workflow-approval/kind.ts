import type { RunKind } from '../../runs/run-kind.ts';
import { WORKFLOW_APPROVAL } from '../workflow-job/workflow-job-kind-ref.ts';
import { approvalRoutes } from './approval-routes.ts';
import { approvalLauncher } from './launch.ts';
import { approvalOutcome, notifyApproval } from './notify.ts';
import { workflowApprovals } from './workflow-approval.resource.ts';

/** Approvals run no process: they stay pending until approved, denied, canceled or timed out (the workflow pass). */
export const workflowApprovalKind: RunKind = {
  ...WORKFLOW_APPROVAL,
  resource: workflowApprovals,
  unifiedJobsPosition: 7,
  run: async () => ({ status: 'error', explanation: 'Approvals are not run by a node.' }),
  templateIsSource: false,
  placed: false,
  eventGroup: false,
  // Approvals notify through their workflow's approvals lists only (notifyApproval), as AWX.
  runNotifications: false,
  afterFinish: async (tx, approval) => {
    const event = approvalOutcome(approval);
    if (event) await notifyApproval(tx, approval, event);
  },
  routes: [workflowApprovals.runRoutes, approvalRoutes],
  // Approvals are started only by their workflow's approval nodes.
  launchers: { workflowNode: approvalLauncher },
};
