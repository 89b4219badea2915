import type { FastifyInstance } from 'fastify';
import { viewOptions } from '../../api/options.ts';
import { AUTHENTICATED } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { allowedPermissions, contentTypeOf, PERMISSION_MODELS } from '../../rbac/role-definitions.ts';

export const ROLE_METADATA_URL = '/api/v2/role_metadata/';

/** DAB's RoleMetadataView: the permissions a role definition of each content type may name (system roles are not enabled). */
export function roleMetadataRoutes(app: FastifyInstance): void {
  const allowed = Object.fromEntries([...PERMISSION_MODELS].sort((a, b) => a.model.localeCompare(b.model)).map((m) => [contentTypeOf(m), allowedPermissions(m)]));
  routeMethods(app, ROLE_METADATA_URL, AUTHENTICATED, {
    GET: async () => ({ allowed_permissions: allowed }),
    OPTIONS: async () => viewOptions('Role Metadata', 'General data about models and permissions tracked by the RBAC of role definitions: the permissions valid for a role of each content type.'),
  });
}
