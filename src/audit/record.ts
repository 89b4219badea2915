import type { Queryable } from '../db/database.ts';
import type { RequestContext } from '../api/context.ts';

/**
 * Kinds of audit event. Dotted names keep exports stable for SIEM rules:
 * area.subject.action.
 */
export type AuditEventType =
  | 'auth.login'
  | 'auth.logout'
  | 'auth.session_expired'
  | 'auth.throttled'
  | 'rbac.role_granted'
  | 'rbac.role_revoked'
  | 'token.created'
  | 'token.revoked'
  | 'application.created'
  | 'application.deleted'
  | 'credential.read'
  | 'setting.changed'
  | 'user.password_changed';

export interface AuditEvent {
  type: AuditEventType;
  outcome?: 'success' | 'failure' | 'denied';
  /** Who acted; for a failed login, the username that was tried goes in actorUsername. */
  ctx: RequestContext;
  actorUsername?: string;
  target?: { type: string; id?: number | null; name?: string };
  /** Client details taken from the request. */
  client?: { remoteAddr?: string; userAgent?: string };
  /** Further facts; never secrets. */
  detail?: Record<string, unknown>;
}

/**
 * Appends one audit event. Pass the change's transaction so the event stands or falls with it;
 * events about refusals (a failed login) pass the database itself.
 */
export async function recordAudit(q: Queryable, event: AuditEvent): Promise<void> {
  const user = event.ctx.user;
  await q.query(
    `INSERT INTO audit_events (event_type, outcome, actor_id, actor_username, target_type, target_id, target_name,
       remote_addr, user_agent, auth_method, node, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb)`,
    [
      event.type,
      event.outcome ?? 'success',
      user && user.id > 0 ? user.id : null,
      event.actorUsername ?? user?.username ?? '',
      event.target?.type ?? '',
      event.target?.id ?? null,
      event.target?.name ?? '',
      event.client?.remoteAddr ?? '',
      (event.client?.userAgent ?? '').slice(0, 512),
      event.ctx.authMethod ?? '',
      event.ctx.service.env.nodeName,
      JSON.stringify(event.detail ?? {}),
    ],
  );
}

/** Client details of a request, for audit events. */
export function clientOf(request: { ip: string; headers: Record<string, string | string[] | undefined> }) {
  const agent = request.headers['user-agent'];
  return { remoteAddr: request.ip, userAgent: Array.isArray(agent) ? agent[0] : agent ?? '' };
}
