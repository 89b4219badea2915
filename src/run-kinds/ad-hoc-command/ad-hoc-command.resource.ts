import type { RequestContext } from '../../api/context.ts';
import { boolean, choice, integer, json, ref, secret, text } from '../../api/fields.ts';
import { VERBOSITY_CHOICES } from '../../runs/run-fields.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import { variablesField } from '../../inventory/variables.ts';
import type { Launcher } from '../../runs/launch.ts';
import { checkReferences, columnsOf } from '../../api/crud.ts';
import { forbidden } from '../../api/errors.ts';
import { checkAdHocCommand, LAUNCH_PASSWORDS, mayRunAdHoc } from './checks.ts';
import { taskImpact } from '../../task-manager/task-impact.ts';
import { defineRunResource } from '../../runs/run-resource.ts';
import { defineEventResource } from '../../runs/event-resource.ts';

/**
 * A new command (POST on /ad_hoc_commands/ or a host's, group's or inventory's list, or relaunch/):
 * AWX's checks, then the run with its task impact and its credential among the run's credentials.
 */
export const adHocLauncher: Launcher<Values> = {
  kind: { name: 'ad_hoc_command' },
  async plan(tx, ctx, _template, values) {
    if (!(await mayRunAdHoc(ctx, tx, values))) throw forbidden();
    await checkReferences(tx, ctx.service.resources, adHocCommands, values);
    await completeNewCommand(tx, ctx, values);
    const [columns, params] = columnsOf(adHocCommands, values);
    const run: Record<string, unknown> = Object.fromEntries(columns.map((column, i) => [column, params[i]]));
    run.task_impact = await taskImpact(tx, values.inventory as number, String(values.limit ?? ''), Number(values.forks ?? 0));
    return {
      values: run,
      link: async (q, row) => {
        if (row.credential_id) await q.query('INSERT INTO unified_job_credentials (unified_job_id, credential_id) VALUES ($1, $2)', [row.id, row.credential_id]);
      },
    };
  },
};

/** Ad hoc commands: one module run against an inventory's hosts, kept in unified_jobs and read through the ad_hoc_commands view. */
export const adHocCommands = defineRunResource({
  name: 'ad_hoc_command',
  label: 'Ad Hoc Command List',
  typeLabel: 'Command',
  description: 'Runs of one Ansible module against the hosts of an inventory.',
  fields: {
    job_type: choice(['run', 'check'], { default: 'run' }),
    inventory: ref('inventory', { required: true }),
    limit: text({ maxLength: 1024, helpText: 'Host pattern the command runs on; all hosts when empty.' }),
    credential: ref('credential', { helpText: 'A Machine credential; you need its use_role.' }),
    module_name: text({ default: 'command', maxLength: 1024, helpText: 'A module the AD_HOC_COMMANDS setting allows.' }),
    module_args: text(),
    forks: integer({ default: 0, min: 0 }),
    verbosity: integer({ default: 0, choices: VERBOSITY_CHOICES }),
    extra_vars: variablesField({ filterable: false }),
    become_enabled: boolean(),
    diff_mode: boolean(),
    execution_environment: ref('execution_environment'),
    host_status_counts: json({ readOnly: true, filterable: false, default: undefined }),
    // Answers to the credential's ASK inputs: taken on create, kept sealed in credential_passwords, never shown.
    ...Object.fromEntries(LAUNCH_PASSWORDS.map((name) => [name, secret({ helpText: 'Needed when the credential asks for it at launch.' })])),
    credential_passwords: secret({ readOnly: true }),
  },
  owner: { contentType: 'inventory', column: 'inventory_id' },
  // Unlike the other run kinds, ad hoc commands are created through their own list: POST runs one.
  createdThroughList: { canCreate: mayRunAdHoc, launcher: adHocLauncher },
  // A relaunch runs the command again: the caller must be able to start it with its inventory and credential.
  actions: { relaunch: (ctx, tx, row) => mayRunAdHoc(ctx, tx, { inventory: row.inventory_id, credential: row.credential_id }) },
  cancelRole: 'admin_role',
  template: { plural: 'unified_job_templates', column: 'unified_job_template_id' },
  decorate: (row, out) => {
    // As AWX: an ad hoc command has neither a template nor a description.
    delete out.unified_job_template;
    delete out.description;
    const related = out.related as Record<string, string>;
    related.relaunch = `/api/v2/ad_hoc_commands/${row.id}/relaunch/`;
    delete related.unified_job_template;
    for (const name of [...LAUNCH_PASSWORDS, 'credential_passwords']) delete out[name];
  },
});

/** One ad hoc command event (/ad_hoc_command_events/{id}/), visible to whoever sees its command. */
export const adHocCommandEvents = defineEventResource(adHocCommands);

/** A new command's derived values: its name (the module), status, organization (the inventory's). */
async function completeNewCommand(tx: Queryable, ctx: RequestContext, values: Values): Promise<void> {
  await checkAdHocCommand(tx, ctx, values);
  const [inventory] = await tx.query<{ organization_id: number | null }>('SELECT organization_id FROM inventories WHERE id = $1', [values.inventory]);
  values.name = values.module_name;
  values.organization = inventory?.organization_id ?? null;
}
