import { http } from '../../api/client';
import type { ApiBody, ResourceObject } from '../../api/types';

type RoleBody = ApiBody<'/api/v2/users/{id}/roles/' | '/api/v2/teams/{id}/roles/', 'post'>;

export type PrincipalKind = 'users' | 'teams';

/** The objects whose Access tab grants and revokes their roles. */
export type AccessObject = ResourceObject<'organizations' | 'teams' | 'credentials' | 'projects' | 'inventories' | 'job_templates' | 'workflow_job_templates'>;

/** Gives a user or a team a role (AWX: POST /users/{id}/roles/ {id}). */
export const grantRole = (kind: PrincipalKind, principalId: number, roleId: number) => http.post(`/api/v2/${kind}/${principalId}/roles/`, { id: roleId } satisfies RoleBody);

/** Takes a role back from a user or a team. */
export const revokeRole = (kind: PrincipalKind, principalId: number, roleId: number) => http.post(`/api/v2/${kind}/${principalId}/roles/`, { id: roleId, disassociate: true } satisfies RoleBody);

export interface ObjectRole {
  id: number;
  name: string;
  description: string;
  user_only?: boolean;
}
