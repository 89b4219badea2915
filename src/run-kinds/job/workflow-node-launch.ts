/**
 * The job a workflow node starts (launch_type workflow). Who may use the template and what the node
 * names was checked when the node was saved (AWX); the job takes the template's values, under the
 * node's prompts, under the workflow job's, each only where the template asks for it (AWX's
 * get_job_kwargs), and the extra vars the workflow pass merged.
 */
import { ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { passwordsNeededFor, readCredentialPasswords } from '../../ansible/credential-passwords.ts';
import type { Launcher } from '../../runs/launch.ts';
import { memoized } from '../../runs/launch-memo.ts';
import type { WorkflowNodeLaunch } from '../../runs/run-kind.ts';
import { jobPlan, JOB } from './create-job.ts';
import { acceptPrompts, promptColumns } from '../../runs/accept-prompts.ts';
import { JOB_TEMPLATE_FACET } from './prompts.ts';
import { linkedCredentials, nodePrompts } from '../workflow-job/node-prompts.ts';
import { templateLinks } from './template-links.ts';
import { savedVariables, templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

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

/** The labels or instance groups (in order) saved on the workflow job's node; empty when none. */
async function nodeList(tx: Queryable, nodeId: number, list: 'labels' | 'instance_groups'): Promise<number[]> {
  const sql = list === 'labels'
    ? 'SELECT label_id AS id FROM workflow_job_node_labels WHERE node_id = $1 ORDER BY label_id'
    : 'SELECT instance_group_id AS id FROM workflow_job_node_instance_groups WHERE node_id = $1 ORDER BY position, instance_group_id';
  return (await tx.query<{ id: number }>(sql, [nodeId])).map((r) => r.id);
}

export const workflowNodeJobLauncher: Launcher<WorkflowNodeLaunch, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, _ctx, template, launch) {
    const { node, workflowJob, extraVars, memo } = launch;
    if (!template) throw new Error('a workflow node launch needs its template');
    const given = nodePrompts(JOB_TEMPLATE_FACET, node, workflowJob, await linkedCredentials(tx, launch), extraVars);
    const { values: accepted, variables } = await acceptPrompts(tx, JOB_TEMPLATE_FACET, template, given, { unasked: 'ignore', takeVariables: true });
    const values = promptColumns(JOB_TEMPLATE_FACET, accepted);
    if (node.job_slice_number) values.job_slice_number = node.job_slice_number;
    const inventoryId = (accepted.inventory as number | undefined) ?? template.inventory_id;
    if (!inventoryId) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    const links = await memoized(memo, `links:${template.id}`, () => templateLinks(tx, template.id));
    const credentialIds = accepted.credentials ? await nodeCredentials(tx, template.id, node.id, 'workflow_job_node_credentials') : links.credentialIds;
    const needed = accepted.credentials ? await passwordsNeededFor(tx, credentialIds) : links.passwordsNeeded;
    // The node's labels and instance groups replace the template's where the template asks for them (AWX's prompts).
    const nodeLabels = template.ask_labels_on_launch ? await nodeList(tx, node.id as number, 'labels') : [];
    const nodeGroups = template.ask_instance_groups_on_launch ? await nodeList(tx, node.id as number, 'instance_groups') : [];
    const { missing } = readCredentialPasswords(needed, {});
    if (missing.length) throw new ValidationError({ passwords_needed_to_start: missing });
    return jobPlan(tx, {
      template,
      launchType: 'workflow',
      inventoryId,
      values,
      // Answers to password questions a node keeps (a catalog request's) are stored encrypted.
      ...templateExtraVars(template, savedVariables(template, variables)),
      credentialIds,
      credentialPasswords: {},
      labelIds: nodeLabels.length ? nodeLabels : links.labelIds,
      instanceGroupIds: nodeGroups,
      memo,
    });
  },
};
