/** Related lists of an organization beyond its members and teams: what it owns, and its ordered Galaxy credentials. */
import { hasObjectRole } from '../../api/access.ts';
import { ApiError, forbidden } from '../../api/errors.ts';
import { isVisible } from '../../api/list.ts';
import { orderedJoinTable, reverse, type Relation } from '../../api/relations.ts';

/**
 * organizations/{id}/galaxy_credentials/: the organization's Galaxy credentials, in the order attached.
 * As AWX: its admins attach credentials they can read, of the Galaxy type only, and detach any.
 */
export const galaxyCredentials: Relation = {
  ...orderedJoinTable('credential', 'organization_galaxy_credentials', 'organization_id', 'credential_id'),
  association: 'galaxy_credentials',
  async authorize(ctx, tx, organizationId, credentialId, detach) {
    if (!(await hasObjectRole(ctx, tx, 'organization', organizationId, 'admin_role'))) throw forbidden();
    if (detach) return;
    if (!(await isVisible(tx, ctx, ctx.service.resources.get('credential'), credentialId))) throw forbidden();
    const [type] = await tx.query<{ name: string; namespace: string | null }>(
      'SELECT t.name, t.namespace FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE c.id = $1',
      [credentialId],
    );
    if (type.namespace !== 'galaxy_api_token') throw new ApiError(400, { msg: `Credential must be a Galaxy credential, not ${type.name}.` });
  },
};

/** What an organization owns, listed under it; POST creates one there where AWX allows it. */
export const ownedByOrganization: Record<string, Relation> = {
  projects: reverse('project', 'projects', 'organization_id', 'organization'),
  inventories: reverse('inventory', 'inventories', 'organization_id'),
  // A template takes its project's organization: one created here must use a project of this organization.
  job_templates: reverse('job_template', 'job_templates', 'organization_id', 'organization'),
  workflow_job_templates: reverse('workflow_job_template', 'workflow_job_templates', 'organization_id', 'organization'),
  credentials: reverse('credential', 'credentials', 'organization_id', 'organization'),
  execution_environments: reverse('execution_environment', 'execution_environments', 'organization_id', 'organization'),
  applications: reverse('o_auth2_application', 'applications', 'organization_id', 'organization'),
};
