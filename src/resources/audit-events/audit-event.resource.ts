import { seesEverything, type AccessPolicy } from '../../api/access.ts';
import { forbidden } from '../../api/errors.ts';
import { choice, datetime, integer, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { csvExport, siemExport } from './exports.ts';
import type { AuditEventRow } from '../../db/tables.ts';

const never = () => false;

const auditAccess: AccessPolicy = {
  // System administrators and system auditors only; anyone else is refused outright (403), not shown an empty list.
  visible: (ctx) => {
    if (!seesEverything(ctx)) throw forbidden();
    return null;
  },
  canCreate: never,
  canChange: never,
  canDelete: never,
  canAttach: never,
};

/**
 * The audit log: security events written by src/audit/record.ts. Read-only here, and immutable in
 * the database (triggers refuse UPDATE, DELETE and TRUNCATE).
 */
export const auditEvents = defineResource<AuditEventRow>({
  name: 'audit_event',
  table: 'audit_events',
  label: 'Audit Event List',
  description: 'Security events: logins and logouts, permission, token, credential and settings changes. ?format=csv or ?format=siem downloads every matching event.',
  untracked: true,
  fields: {
    timestamp: datetime({ readOnly: true, nullable: false }),
    event_type: text({ readOnly: true, helpText: 'What happened, as area.action: auth.login, setting.changed, rbac.role_granted...' }),
    outcome: choice(['success', 'failure', 'denied'], { readOnly: true }),
    actor: ref('user', { readOnly: true, helpText: 'The user who acted, when known.' }),
    actor_username: text({ readOnly: true, helpText: 'The username at the time (for a failed login, the username that was tried).' }),
    target_type: text({ readOnly: true }),
    target_id: integer({ readOnly: true, nullable: true, label: 'Target id' }),
    target_name: text({ readOnly: true }),
    remote_addr: text({ readOnly: true, label: 'Remote address' }),
    user_agent: text({ readOnly: true }),
    auth_method: text({ readOnly: true, helpText: 'How the actor authenticated: session, basic or token.' }),
    node: text({ readOnly: true, helpText: 'The cluster node that recorded the event.' }),
    detail: json({ readOnly: true, filterable: true, helpText: 'Further facts about the event; never secrets.' }),
  },
  ordering: '-timestamp',
  search: ['event_type', 'actor_username', 'target_type', 'target_name', 'remote_addr'],
  access: auditAccess,
  operations: { create: false, update: false, delete: false },
  exports: { csv: csvExport, siem: siemExport },
});
