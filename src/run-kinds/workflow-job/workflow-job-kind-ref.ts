/** What the runs core needs to create workflow jobs and approvals (the kinds add their resources). */
export const WORKFLOW_JOB = { name: 'workflow_job', templateTable: 'workflow_job_templates' } as const;
export const WORKFLOW_APPROVAL = { name: 'workflow_approval', templateTable: 'workflow_approval_templates' } as const;
