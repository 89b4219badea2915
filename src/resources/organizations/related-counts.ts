import type { RequestContext } from '../../api/context.ts';
import { ident, Params } from '../../api/sql.ts';
import type { Queryable, Row } from '../../db/database.ts';

export type RelatedCounts = Record<'inventories' | 'teams' | 'users' | 'job_templates' | 'admins' | 'projects', number>;

/** What AWX counts per organization: objects of these resources the caller sees. */
const COUNTED = { inventories: 'inventory', teams: 'team', job_templates: 'job_template', projects: 'project' } as const;

/**
 * summary_fields.related_field_counts of a page of organizations, as AWX's OrganizationCountsMixin:
 * the inventories, teams, job templates and projects the caller sees in each, and its members and
 * admins (always shown). One query per counted resource for the whole page.
 */
export async function relatedFieldCounts(db: Queryable, rows: readonly Row[], ctx: RequestContext): Promise<Map<number, RelatedCounts>> {
  const ids = rows.map((r) => r.id as number);
  const counts = new Map<number, RelatedCounts>(ids.map((id) => [id, { inventories: 0, teams: 0, users: 0, job_templates: 0, admins: 0, projects: 0 }]));
  const queries = Object.entries(COUNTED).map(async ([key, name]) => {
    const resource = ctx.service.resources.get(name);
    const params = new Params();
    const organizations = params.add(ids);
    await resource.access.prepare?.(ctx, db);
    const visible = resource.access.visible(ctx, 't', params);
    const found = await db.query<{ organization_id: number; n: number }>(
      `SELECT t.organization_id, count(*)::int AS n FROM ${ident(resource.table)} t
       WHERE t.organization_id = ANY(${organizations}::integer[])${visible ? ` AND ${visible}` : ''} GROUP BY t.organization_id`,
      params.values,
    );
    for (const { organization_id, n } of found) counts.get(organization_id)![key as keyof RelatedCounts] = n;
  });
  queries.push(
    (async () => {
      const members = await db.query<{ object_id: number; role_field: string; n: number }>(
        `SELECT roles.object_id, roles.role_field, count(DISTINCT role_users.user_id)::int AS n FROM roles
         JOIN role_users ON role_users.role_id = roles.id
         WHERE roles.content_type = 'organization' AND roles.role_field IN ('member_role', 'admin_role') AND roles.object_id = ANY($1::integer[])
         GROUP BY roles.object_id, roles.role_field`,
        [ids],
      );
      for (const { object_id, role_field, n } of members) counts.get(object_id)![role_field === 'admin_role' ? 'admins' : 'users'] = n;
    })(),
  );
  await Promise.all(queries);
  return counts;
}
