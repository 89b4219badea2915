import { http } from '../../api/client';

export type PrincipalKind = 'users' | 'teams';

/** Gives a user or a team a role (AWX: POST /users/{id}/roles/ {id}). */
export const grantRole = (kind: PrincipalKind, principalId: number, roleId: number) => http.post(`/api/v2/${kind}/${principalId}/roles/`, { id: roleId });

/** Takes a role back from a user or a team. */
export const revokeRole = (kind: PrincipalKind, principalId: number, roleId: number) => http.post(`/api/v2/${kind}/${principalId}/roles/`, { id: roleId, disassociate: true });

export interface ObjectRole {
  id: number;
  name: string;
  description: string;
  user_only?: boolean;
}
