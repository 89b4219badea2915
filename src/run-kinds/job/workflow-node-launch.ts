/**
 * The job a workflow node starts (launch_type workflow). Who may use the template was checked when
 * the node was saved (AWX); the job takes the template's values, the workflow job's prompts the
 * template asks for, then the node's prompts, and the extra vars the workflow pass merged.
 */
import { ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { passwordsNeededFor, readCredentialPasswords } from '../../ansible/credential-passwords.ts';
import type { Launcher } from '../../runs/launch.ts';
import { jobPlan, JOB } from './create-job.ts';

import { templateLinks } from './template-links.ts';
import { templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

export interface NodeLaunch {
  node: AnyRow;
  workflowJob: AnyRow;
  extraVars: Record<string, unknown>;
}

/** Node prompt columns a job takes as they are named on unified_jobs. */
const NODE_COLUMNS = ['job_type', 'scm_branch', 'forks', 'limit', 'verbosity', 'job_tags', 'skip_tags', 'timeout', 'diff_mode', 'job_slice_count', 'execution_environment_id'];
/** Workflow job prompts and the ask flag of the job template that lets them through. */
const WORKFLOW_PROMPTS: Record<string, string> = { limit: 'limit', scm_branch: 'scm_branch', job_tags: 'tags', skip_tags: 'skip_tags' };

/** The node's credentials replace the template's of the same type; the rest of the template's stay. */
async function nodeCredentials(tx: Queryable, templateId: number, nodeId: number, table: string): Promise<number[]> {
  const rows = await tx.query<{ id: number }>(
    `WITH node AS (SELECT c.id, c.credential_type_id FROM ${table} l JOIN credentials c ON c.id = l.credential_id WHERE l.node_id = $2)
     SELECT id FROM node
     UNION SELECT c.id FROM job_template_credentials l JOIN credentials c ON c.id = l.credential_id
       WHERE l.job_template_id = $1 AND c.credential_type_id NOT IN (SELECT credential_type_id FROM node)
     ORDER BY id`,
    [templateId, nodeId],
  );
  return rows.map((r) => r.id);
}

export const workflowNodeJobLauncher: Launcher<NodeLaunch, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, _ctx, template, { node, workflowJob, extraVars }) {
    if (!template) throw new Error('a workflow node launch needs its template');
    const values: Record<string, unknown> = {};
    for (const column of NODE_COLUMNS) if (node[column] !== null && node[column] !== undefined) values[column] = node[column];
    for (const [column, flag] of Object.entries(WORKFLOW_PROMPTS)) {
      if ((template as AnyRow)[`ask_${flag}_on_launch`] && workflowJob[column]) values[column] = workflowJob[column];
    }
    if (node.job_slice_number) values.job_slice_number = node.job_slice_number;
    const inventoryId = (template.ask_inventory_on_launch && workflowJob.inventory_id) || node.inventory_id || template.inventory_id;
    if (!inventoryId) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    const credentialIds = await nodeCredentials(tx, template.id, node.id, 'workflow_job_node_credentials');
    const { missing } = readCredentialPasswords(await passwordsNeededFor(tx, credentialIds), {});
    if (missing.length) throw new ValidationError({ passwords_needed_to_start: missing });
    const links = await templateLinks(tx, template.id);
    return jobPlan(tx, {
      template,
      launchType: 'workflow',
      inventoryId,
      values,
      ...templateExtraVars(template, extraVars),
      credentialIds,
      credentialPasswords: {},
      labelIds: links.labelIds,
      instanceGroupIds: [],
    });
  },
};
