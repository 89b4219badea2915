/**
 * A schedule's saved credentials and labels (AWX's /schedules/{id}/credentials/ and labels/):
 * attached only when the template asks for them at launch, by those who may change the schedule.
 */
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { joinTable, orderedJoinTable, type Relation } from '../../api/relations.ts';
import { isVisible } from '../../api/list.ts';
import type { Queryable } from '../../db/database.ts';
import type { ScheduleRow } from '../../db/tables.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { assertLaunchConfigSlotFree } from '../credentials/one-per-type.ts';
import { launchConfigLabels } from '../labels/launch-config-labels.ts';
import { scheduleAccess, loadTemplate } from './schedule-access.ts';
import { allowsPrompt } from './schedule-prompts.ts';
import { scheduleKindsOf } from './schedulable.ts';

const RUN_CREDENTIAL_KINDS = ['ssh', 'vault', 'net', 'cloud', 'kubernetes', 'insights'];

async function assertMayChange(ctx: RequestContext, tx: Queryable, scheduleId: number): Promise<void> {
  const [schedule] = await tx.query<ScheduleRow>('SELECT * FROM schedules WHERE id = $1', [scheduleId]);
  if (!schedule || !(await scheduleAccess.canChange(ctx, tx, schedule, {}))) throw forbidden();
}

async function assertTemplateAsks(ctx: RequestContext, tx: Queryable, scheduleId: number, prompt: 'credentials' | 'labels' | 'instance_groups'): Promise<void> {
  const [schedule] = await tx.query<{ unified_job_template_id: number }>('SELECT unified_job_template_id FROM schedules WHERE id = $1', [scheduleId]);
  const template = await loadTemplate(tx, ctx.service.resources, schedule?.unified_job_template_id);
  if (!template || !allowsPrompt(scheduleKindsOf(ctx.service), template.kind, template.row, prompt)) {
    throw new ValidationError({ msg: [`Related template is not configured to accept ${prompt} on launch.`] });
  }
}

export function scheduleCredentials(): Relation {
  return {
    ...joinTable('credential', 'schedule_credentials', 'schedule_id', 'credential_id'),
    async authorize(ctx, tx, scheduleId, credentialId, detach) {
      await assertMayChange(ctx, tx, scheduleId);
      if (detach) return;
      await assertTemplateAsks(ctx, tx, scheduleId, 'credentials');
      await assertCanUseCredential(ctx, tx, credentialId, 'credentials', RUN_CREDENTIAL_KINDS);
      await assertLaunchConfigSlotFree(tx, { table: 'schedule_credentials', column: 'schedule_id' }, scheduleId, credentialId);
    },
  };
}

export const scheduleLabels = (): Relation =>
  launchConfigLabels({
    name: 'schedule',
    table: 'schedule_labels',
    column: 'schedule_id',
    assertMayChange,
    assertTakesLabels: (ctx, tx, id) => assertTemplateAsks(ctx, tx, id, 'labels'),
  });

export function scheduleInstanceGroups(): Relation {
  return {
    ...orderedJoinTable('instance_group', 'schedule_instance_groups', 'schedule_id', 'instance_group_id'),
    async authorize(ctx, tx, scheduleId, groupId, detach) {
      await assertMayChange(ctx, tx, scheduleId);
      if (detach) return;
      await assertTemplateAsks(ctx, tx, scheduleId, 'instance_groups');
      if (!(await isVisible(tx, ctx, ctx.service.resources.get('instance_group'), groupId))) throw forbidden();
    },
  };
}
