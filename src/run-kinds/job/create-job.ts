/** The job a job template's launch makes: shared by launch, relaunch and the provisioning callback. */
import type { Queryable } from '../../db/database.ts';
import { ValidationError } from '../../api/errors.ts';
import { missingInputsProblem } from '../../resources/credentials/credential-use.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import type { RunPlan } from '../../runs/launch.ts';
import { sealCredentialPasswords } from '../../ansible/credential-passwords.ts';
import { taskImpact } from '../../task-manager/task-impact.ts';
import { memoized, type LaunchMemo } from '../../runs/launch-memo.ts';
import { pythonJson } from '../../api/python-json.ts';
import { extraInventoriesFor } from './launch-inventories.ts';

/** Job columns a template gives and a launch may override (job column -> template column). */
export const TEMPLATE_COLUMNS = [
  'job_type', 'scm_branch', 'forks', 'limit', 'verbosity', 'job_tags', 'skip_tags', 'start_at_task', 'timeout', 'diff_mode',
  'job_slice_count', 'execution_environment_id', 'use_fact_cache', 'become_enabled', 'allow_simultaneous', 'playbook',
  'project_id', 'organization_id', 'description', 'force_handlers',
] as const;

export interface JobSpec {
  template: JobTemplateRow;
  launchType: 'manual' | 'relaunch' | 'callback' | 'webhook' | 'scheduled' | 'workflow';
  inventoryId: number;
  /** The inventories besides the primary one, in order: the template's unless given (a launch's prompt, a relaunch's job's). */
  extraInventoryIds?: readonly number[];
  /** Column values of the job: the template's unless given here. */
  values: Record<string, unknown>;
  /** Extra vars as stored (survey passwords already encrypted) and which of them are survey passwords. */
  extraVars: Record<string, unknown>;
  surveyPasswords: Record<string, string>;
  credentialIds: readonly number[];
  credentialPasswords: Record<string, string>;
  labelIds: readonly number[];
  instanceGroupIds: readonly number[];
  /** Reads shared with the other launches of a batch. */
  memo?: LaunchMemo;
}

/** The template's labels, which a job carries unless the launch chose others. */
export async function templateLabelIds(tx: Queryable, templateId: number): Promise<number[]> {
  return (await tx.query<{ label_id: number }>('SELECT label_id FROM job_template_labels WHERE job_template_id = $1 ORDER BY label_id', [templateId])).map((r) => r.label_id);
}

/** What the runs core needs to create a job (the kind itself adds its runner). */
export const JOB = { name: 'job', templateTable: 'job_templates' } as const;

/** The job a launch of `spec` makes (pending), with its credentials, labels and launch-time instance groups. */
export async function jobPlan(tx: Queryable, spec: JobSpec): Promise<RunPlan<JobTemplateRow>> {
  const { template } = spec;
  const unusable = await missingInputsProblem(tx, spec.credentialIds, 'Job');
  if (unusable) throw ValidationError.field('credentials', unusable);
  const columns: Record<string, unknown> = Object.fromEntries(TEMPLATE_COLUMNS.map((c) => [c, template[c]]));
  Object.assign(columns, spec.values);
  const limit = String(columns.limit ?? '');
  const forks = columns.forks as number;
  const extraInventoryIds = await extraInventoriesFor(tx, template.id, spec.inventoryId, spec.extraInventoryIds);
  const impact = await memoized(spec.memo, `task_impact:${spec.inventoryId}:${forks}:${limit}`, () => taskImpact(tx, spec.inventoryId, limit, forks));
  return {
    values: {
      ...columns,
      name: template.name,
      unified_job_template_id: template.id,
      job_template_id: template.id,
      launch_type: spec.launchType,
      inventory_id: spec.inventoryId,
      extra_vars: pythonJson(spec.extraVars),
      survey_passwords: JSON.stringify(spec.surveyPasswords),
      credential_passwords: sealCredentialPasswords(spec.credentialPasswords),
      task_impact: impact,
    },
    link: async (q, row) => {
      if (extraInventoryIds.length) {
        await q.query(
          `INSERT INTO job_inventories (job_id, inventory_id, position)
           SELECT $1, i.id, i.position - 1 FROM unnest($2::int[]) WITH ORDINALITY AS i(id, position) ON CONFLICT DO NOTHING`,
          [row.id, extraInventoryIds],
        );
      }
      if (spec.credentialIds.length) {
        await q.query(
          'INSERT INTO unified_job_credentials (unified_job_id, credential_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING',
          [row.id, [...spec.credentialIds]],
        );
      }
      if (spec.labelIds.length) {
        await q.query('INSERT INTO job_labels (job_id, label_id) SELECT $1, unnest($2::int[]) ON CONFLICT DO NOTHING', [row.id, [...spec.labelIds]]);
      }
      if (spec.instanceGroupIds.length) {
        await q.query(
          `INSERT INTO unified_job_instance_groups (unified_job_id, instance_group_id, position)
           SELECT $1, g.id, g.position - 1 FROM unnest($2::int[]) WITH ORDINALITY AS g(id, position) ON CONFLICT DO NOTHING`,
          [row.id, [...spec.instanceGroupIds]],
        );
      }
    },
  };
}
