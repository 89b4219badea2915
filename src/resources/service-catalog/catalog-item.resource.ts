import { FieldProblem, boolean, json, ref, text, type Field } from '../../api/fields.ts';
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { ServiceCatalogItemRow } from '../../db/tables.ts';
import { notificationTemplateLists } from '../notification-templates/attachments.ts';
import { isOrgAdmin } from '../organizations/organization.resource.ts';
import { catalogItemAccess } from './catalog-access.ts';

const MAX_TAGS = 50;
const MAX_TAG_LENGTH = 64;

/** Tags: a list of short, distinct words. */
function tagsField(): Field {
  return {
    ...json({ default: [], helpText: `Words to find the item by (at most ${MAX_TAGS}, each at most ${MAX_TAG_LENGTH} characters).` }),
    valueSchema: { type: 'array', items: { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH }, maxItems: MAX_TAGS },
    parse: (value: unknown) => {
      if (!Array.isArray(value)) throw new FieldProblem('Expected a list of tags.');
      if (value.length > MAX_TAGS) throw new FieldProblem(`Ensure this field has no more than ${MAX_TAGS} tags.`);
      for (const tag of value) {
        if (typeof tag !== 'string' || tag.trim() === '') throw new FieldProblem('Each tag must be a non-blank string.');
        if (tag.length > MAX_TAG_LENGTH) throw new FieldProblem(`Ensure each tag has no more than ${MAX_TAG_LENGTH} characters.`);
      }
      return [...new Set(value as string[])];
    },
  };
}

const TEMPLATE_TABLES = { job_template: 'job_templates', workflow_job_template: 'workflow_job_templates' } as const;

/**
 * An item as its values make it (over the stored row): exactly one template, of the item's
 * organization; an approver team of that organization too.
 */
async function checkItem(tx: Queryable, values: Values, existing: ServiceCatalogItemRow | null): Promise<void> {
  const value = (field: string, column: keyof ServiceCatalogItemRow) => (field in values ? values[field] : existing?.[column] ?? null) as number | null;
  const organization = value('organization', 'organization_id');
  const templates = { job_template: value('job_template', 'job_template_id'), workflow_job_template: value('workflow_job_template', 'workflow_job_template_id') };
  const errors: FieldErrors = {};
  if ((templates.job_template === null) === (templates.workflow_job_template === null)) {
    throw new ValidationError({ __all__: ['A catalog item launches exactly one template: give either job_template or workflow_job_template.'] });
  }
  for (const [field, id] of Object.entries(templates)) {
    if (id === null) continue;
    const [template] = await tx.query<{ organization_id: number | null }>(`SELECT organization_id FROM ${TEMPLATE_TABLES[field as keyof typeof TEMPLATE_TABLES]} WHERE id = $1`, [id]);
    if (template && template.organization_id !== organization) errors[field] = ["The template must be one of the catalog item's organization."];
  }
  const team = value('approver_team', 'approver_team_id');
  if (team !== null) {
    const [row] = await tx.query<{ organization_id: number }>('SELECT organization_id FROM teams WHERE id = $1', [team]);
    if (row && row.organization_id !== organization) errors.approver_team = ["The approver team must be a team of the catalog item's organization."];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/** What an organization offers its members to launch without a role on the template (docs/service-catalog.md). */
export const serviceCatalogItems = defineResource<ServiceCatalogItemRow>({
  name: 'service_catalog_item',
  table: 'service_catalog_items',
  label: 'Service Catalog Item List',
  description: "A job template or workflow job template an organization offers its members, who launch it by answering its survey.",
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { required: true }),
    job_template: ref('job_template', { helpText: 'The job template a request launches (or give workflow_job_template).' }),
    workflow_job_template: ref('workflow_job_template', { helpText: 'The workflow job template a request launches (or give job_template).' }),
    icon: text({
      maxLength: 1024, pattern: /^(?:[A-Za-z0-9][A-Za-z0-9_.:-]*|https?:\/\/[^\s"'<>]+)$/,
      patternMessage: 'Enter an icon name (letters, digits, "_", ".", ":", "-") or an http or https URL.',
      helpText: 'An icon name or the http(s) URL of an image, for the console.',
    }),
    category: text({ maxLength: 512 }),
    tags: tagsField(),
    requires_approval: boolean({ helpText: 'Requests wait for an approver before they launch.' }),
    approver_team: ref('team', { helpText: "The team whose members approve requests; the organization's admins when empty." }),
    enabled: boolean({ default: true, helpText: 'A disabled item is hidden from members and takes no requests.' }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description', 'category'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name', 'description'],
  queryFilters: {
    // ?tags=web: items with that tag.
    tags: (value, alias, params) => `${alias}.tags @> jsonb_build_array(${params.add(value)}::text)`,
  },
  related: {
    requests: reverse('service_request', 'service_requests', 'catalog_item_id'),
    ...notificationTemplateLists({
      owner: 'service_catalog_item',
      events: ['requested', 'approved', 'rejected', 'finished'],
      mayAttachTo: async (ctx, tx, itemId) => {
        const [item] = await tx.query<Pick<ServiceCatalogItemRow, 'organization_id'>>('SELECT organization_id FROM service_catalog_items WHERE id = $1', [itemId]);
        return item !== undefined && isOrgAdmin(ctx, tx, item.organization_id);
      },
    }),
  },
  access: catalogItemAccess,
  hooks: { beforeWrite: (tx, _ctx, values, existing) => checkItem(tx, values, existing) },
  decorate: (row, out) => {
    const url = `/api/v2/service_catalog_items/${row.id}/`;
    out.related = { ...out.related, launch_data: `${url}launch_data/`, submit: `${url}submit/` };
  },
});
