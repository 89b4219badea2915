import { boolean, choice, integer, json, ref, text } from '../../api/fields.ts';
import { joinTable, reverse } from '../../api/relations.ts';
import { defineRunResource } from '../../runs/run-resource.ts';
import { readTogether } from '../../db/database.ts';
import { jobCredentialIds, mayRelaunch } from './relaunch-access.ts';
import { passwordsNeededFor } from '../../ansible/credential-passwords.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { loadJobLabels, showJobLabels, type JobLabels } from './job-labels.ts';
import { loadJobInventories, showJobInventories, type JobInventories } from './job-inventories.ts';
import { loadJobCredentials, showJobCredentials, type JobCredentials } from './job-credentials.ts';
import { defineEventResource } from '../../runs/event-resource.ts';
import { WEBHOOK_SERVICES } from '../../resources/webhooks/webhook-fields.ts';
import { pythonJson } from '../../api/python-json.ts';

const readOnly = { readOnly: true } as const;

/** Jobs: runs of a playbook, kept in unified_jobs and read through the jobs view. */
export const jobs = defineRunResource({
  name: 'job',
  label: 'Job List',
  typeLabel: 'Playbook Run',
  actions: { relaunch: mayRelaunch },
  // As AWX's JobDetailSerializer: the passwords a relaunch would ask for.
  detail: async (db, row, out) => {
    out.passwords_needed_to_start = await passwordsNeededFor(db, await jobCredentialIds(db, row.id));
  },
  description: 'Runs of playbooks: what ran, where, with which options, and how it ended.',
  fields: {
    job_type: choice(['run', 'check'], readOnly),
    inventory: ref('inventory', readOnly),
    project: ref('project', readOnly),
    job_template: ref('job_template', readOnly),
    playbook: text(readOnly),
    scm_branch: text(readOnly),
    scm_revision: text(readOnly),
    forks: integer(readOnly),
    limit: text(readOnly),
    extra_vars: text({ readOnly: true, filterable: false }),
    job_tags: text(readOnly),
    skip_tags: text(readOnly),
    start_at_task: text(readOnly),
    diff_mode: boolean(readOnly),
    force_handlers: boolean(readOnly),
    become_enabled: boolean(readOnly),
    use_fact_cache: boolean(readOnly),
    allow_simultaneous: boolean(readOnly),
    job_slice_number: integer(readOnly),
    job_slice_count: integer(readOnly),
    artifacts: json({ readOnly: true, filterable: false, default: undefined }),
    webhook_service: choice(WEBHOOK_SERVICES, { readOnly: true, helpText: 'Service that webhook requests will be accepted from' }),
    webhook_credential: ref('credential', { readOnly: true, helpText: 'Personal Access Token for posting back the status to the service API' }),
    webhook_guid: text({ readOnly: true, helpText: 'Unique identifier of the event that triggered this webhook' }),
  },
  owner: { contentType: 'job_template', column: 'job_template_id' },
  cancelRole: 'admin_role',
  template: { plural: 'job_templates', column: 'job_template_id' },
  eventsPath: 'job_events',
  playbookCounts: true,
  prepare: async (db, rows) => {
    const [labels, credentials, inventories] = await readTogether(
      db, [() => loadJobLabels(db, rows), () => loadJobCredentials(db, rows), () => loadJobInventories(db, rows)] as const,
    );
    return { labels, credentials, inventories };
  },
  decorate: (row, out, prepared) => {
    const loaded = prepared as { labels: JobLabels; credentials: JobCredentials; inventories: JobInventories } | undefined;
    showJobLabels(row, out, loaded?.labels);
    showJobInventories(row, out, loaded?.inventories);
    showJobCredentials(row, out, loaded?.credentials);
    out.related = { ...(out.related as object), relaunch: `/api/v2/jobs/${row.id}/relaunch/` };
    // Survey password answers are kept encrypted and shown as $encrypted$.
    const hidden = Object.keys(row.survey_passwords ?? {});
    if (!hidden.length) return;
    const vars = parseVariables(row.extra_vars);
    for (const name of hidden) if (name in vars) vars[name] = '$encrypted$';
    out.extra_vars = pythonJson(vars);
  },
  related: {
    job_host_summaries: reverse('job_host_summary', 'job_host_summaries', 'job_id'),
    credentials: { ...joinTable('credential', 'unified_job_credentials', 'unified_job_id', 'credential_id'), attachable: false },
    labels: { ...joinTable('label', 'job_labels', 'job_id', 'label_id'), attachable: false },
    inventories: { ...joinTable('inventory', 'job_inventories', 'job_id', 'inventory_id'), attachable: false, positionColumn: 'job_inventories.position' },
  },
});

/** One job event (/job_events/{id}/), visible to whoever sees its job. */
export const jobEvents = defineEventResource(jobs);
