import type { Queryable } from '../db/database.ts';
import type { RequestContext } from '../api/context.ts';
import type { AuditClient } from './client.ts';

/**
 * Kinds of audit event. Dotted names keep exports stable for SIEM rules:
 * area.subject.action.
 */
export type AuditEventType =
  | 'auth.login'
  | 'auth.logout'
  | 'auth.session_expired'
  | 'auth.throttled'
  | 'auth.external_login'
  | 'auth.mapping_changed'
  | 'auth.identity_conflict'
  | 'rbac.role_granted'
  | 'rbac.role_revoked'
  | 'token.created'
  | 'token.revoked'
  | 'application.created'
  | 'application.deleted'
  | 'catalog.request_submitted'
  | 'catalog.request_approved'
  | 'catalog.request_rejected'
  | 'credential.read'
  | 'eda.rule_fired'
  | 'policy.launch_denied'
  | 'setting.changed'
  | 'user.password_changed'
  | 'webauthn.registered'
  | 'webauthn.authenticated'
  | 'webauthn.renamed'
  | 'webauthn.deleted';

export interface AuditEvent {
  type: AuditEventType;
  outcome?: 'success' | 'failure' | 'denied';
  /** Who acted; for a failed login, the username that was tried goes in actorUsername. */
  ctx: RequestContext;
  actorUsername?: string;
  target?: { type: string; id?: number | null; name?: string };
  /** Client details taken from the request. */
  client?: AuditClient;
  /** Further facts; never secrets. */
  detail?: Record<string, unknown>;
}

/**
 * Appends one audit event. Pass the change's transaction so the event stands or falls with it;
 * events about refusals (a failed login) pass the database itself.
 */
export async function recordAudit(q: Queryable, event: AuditEvent): Promise<void> {
  await recordAudits(q, [event]);
}

/** Appends several audit events in one statement (an evaluation's firings). */
export async function recordAudits(q: Queryable, events: readonly AuditEvent[]): Promise<void> {
  if (!events.length) return;
  const rows = events.map((event) => {
    const user = event.ctx.user;
    return {
      event_type: event.type,
      outcome: event.outcome ?? 'success',
      actor_id: user && user.id > 0 ? user.id : null,
      actor_username: event.actorUsername ?? user?.username ?? '',
      target_type: event.target?.type ?? '',
      target_id: event.target?.id ?? null,
      target_name: event.target?.name ?? '',
      remote_addr: event.client?.remoteAddr ?? '',
      user_agent: (event.client?.userAgent ?? '').slice(0, 512),
      auth_method: event.ctx.authMethod ?? '',
      node: event.ctx.service.env.nodeName,
      detail: event.detail ?? {},
    };
  });
  await q.query(
    `INSERT INTO audit_events (event_type, outcome, actor_id, actor_username, target_type, target_id, target_name,
       remote_addr, user_agent, auth_method, node, detail)
     SELECT event_type, outcome, actor_id, actor_username, target_type, target_id, target_name, remote_addr, user_agent, auth_method, node, detail
     FROM jsonb_to_recordset($1::jsonb) AS e(event_type text, outcome text, actor_id integer, actor_username text, target_type text, target_id integer,
       target_name text, remote_addr text, user_agent text, auth_method text, node text, detail jsonb)`,
    [JSON.stringify(rows)],
  );
}

/** Client details of a request, for audit events. */
export function clientOf(request: { ip: string; headers: Record<string, string | string[] | undefined> }) {
  const agent = request.headers['user-agent'];
  return { remoteAddr: request.ip, userAgent: Array.isArray(agent) ? agent[0] : agent ?? '' };
}
