/**
 * Who sees and manages notification templates (AWX's NotificationTemplateAccess): the notification
 * admins of the template's organization (its admins included) manage them; its auditors read them.
 * Notifications are seen by whoever sees their template.
 */
import { hasObjectRole, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Params } from '../../api/sql.ts';
import type { Queryable } from '../../db/database.ts';
import type { NotificationRow, NotificationTemplateRow } from '../../db/tables.ts';

const READERS = ['notification_admin_role', 'auditor_role'];

/** The organizations whose notification templates the caller sees, as SQL. */
export const readableOrganizations = (ctx: RequestContext, params: Params) => objectsWithRole('organization', READERS, params.add(ctx.user?.id ?? 0));

export const isNotificationAdmin = (ctx: RequestContext, tx: Queryable, organizationId: number) =>
  hasObjectRole(ctx, tx, 'organization', organizationId, 'notification_admin_role');

async function administersSomeOrganization(ctx: RequestContext, tx: Queryable): Promise<boolean> {
  if (!ctx.user) return false;
  const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['notification_admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id]);
  return rows.length > 0;
}

/** May the caller change this template (and send its test, copy it, attach it)? */
export const mayManageTemplate = (ctx: RequestContext, tx: Queryable, row: Pick<NotificationTemplateRow, 'organization_id'>) => isNotificationAdmin(ctx, tx, row.organization_id);

export const notificationTemplateAccess: AccessPolicy<NotificationTemplateRow> = {
  visible: (ctx, alias, params) => (seesEverything(ctx) ? null : `${alias}.organization_id IN (${readableOrganizations(ctx, params)})`),
  canCreate: (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    return typeof values.organization === 'number' ? isNotificationAdmin(ctx, tx, values.organization) : administersSomeOrganization(ctx, tx);
  },
  canChange: async (ctx, tx, row, values) => {
    if (!(await mayManageTemplate(ctx, tx, row))) return false;
    // Moving a template needs the same right in the new organization.
    return typeof values.organization !== 'number' || values.organization === row.organization_id || isNotificationAdmin(ctx, tx, values.organization);
  },
  canDelete: (ctx, tx, row) => mayManageTemplate(ctx, tx, row),
  canAttach: () => false,
  actions: { test: mayManageTemplate, copy: mayManageTemplate },
  capabilities: { copy: mayManageTemplate },
};

export const notificationAccess: AccessPolicy<NotificationRow> = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx)
      ? null
      : `${alias}.notification_template_id IN (SELECT id FROM notification_templates WHERE organization_id IN (${readableOrganizations(ctx, params)}))`,
  canCreate: () => false,
  canChange: () => false,
  // As AWX: whoever may delete the template may delete its notifications.
  canDelete: async (ctx, tx, row) => {
    const [template] = await tx.query<Pick<NotificationTemplateRow, 'organization_id'>>('SELECT organization_id FROM notification_templates WHERE id = $1', [row.notification_template_id]);
    return template !== undefined && isNotificationAdmin(ctx, tx, template.organization_id);
  },
  canAttach: () => false,
};
