import { hasObjectRole, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { administersOrganizations, isOrgAdmin } from '../organizations/organization.resource.ts';
import type { LabelRow } from '../../db/tables.ts';

/**
 * Labels belong to an organization: its members (anyone holding its read_role) see and create
 * them, its admins rename and delete them. A label on a template the caller can read is visible too.
 */
const labelAccess: AccessPolicy<LabelRow> = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    return `(${alias}.organization_id IN (${objectsWithRole('organization', ['read_role'], me)})
      OR ${alias}.id IN (SELECT label_id FROM job_template_labels WHERE job_template_id IN (${objectsWithRole('job_template', ['read_role'], me)})))`;
  },
  canCreate: (ctx, tx, values) => typeof values.organization === 'number' ? hasObjectRole(ctx, tx, 'organization', values.organization, 'read_role') : ctx.user !== null,
  canChange: administersOrganizations,
  canDelete: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id),
  canAttach: () => false,
};

export const labels = defineResource<LabelRow>({
  name: 'label',
  table: 'labels',
  label: 'Label List',
  description: 'Names grouping job templates and jobs, shared within an organization.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    organization: ref('organization', { required: true, helpText: 'Organization this label belongs to.' }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name'],
  access: labelAccess,
});
