import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../api/errors.ts';
import { boolean, choice, composedField, datetime, integer, json, ref, secret, text, type Field } from '../../api/fields.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { encryptSecret } from '../../secrets/encryption.ts';
import { organizationAdminsManage } from '../organizations/organization-scoped-access.ts';
import { actionProblem, actionsSchema, EVENT_RULE_RUN_KINDS, parseActions, type Action } from './actions.ts';
import type { RunKinds } from '../../runs/run-kind.ts';
import { CONDITIONS_SCHEMA, parseConditions } from './conditions.ts';
import { EVENT_RULE_KEY_PURPOSE } from './receiving-rules.ts';
import { SOURCE_TYPES } from './source-types.ts';
import type { EventRuleRow } from '../../db/tables.ts';

/** A new key (38 random bytes, URL-safe), as stored. */
export const newStoredRuleKey = () => encryptSecret(EVENT_RULE_KEY_PURPOSE, randomBytes(38).toString('base64url'));

export const receiverPath = (webhookPath: string) => `/api/v2/eda_webhooks/${webhookPath}/`;

const ACTIONS_HELP = 'What a firing does, as a list of {action_type, target_id, extra_vars, description}.';

/** A json field whose value `parse` checks and normalizes. */
function listField(parse: (value: unknown) => unknown, valueSchema: Record<string, unknown>, helpText: string, required = false): Field {
  return { ...json({ helpText, required, default: required ? undefined : [] }), parse, valueSchema };
}

/** Actions name targets of the rule's organization the author may launch: checked when either changes. */
async function checkActions(tx: Queryable, ctx: RequestContext, values: Values, existing: Row | null): Promise<void> {
  if (values.actions === undefined && (values.organization === undefined || values.organization === existing?.organization_id)) return;
  const organization = (values.organization ?? existing?.organization_id) as number;
  const actions = (values.actions ?? existing?.actions ?? []) as Action[];
  const problems: string[] = [];
  for (const [i, action] of actions.entries()) {
    const problem = await actionProblem(tx, ctx, organization, action);
    if (problem) problems.push(`Action ${i + 1}: ${problem}`);
  }
  if (problems.length) throw new ValidationError({ actions: problems });
}

/** Rules that turn events sent to the public receiver into launches and notifications (docs/event-driven.md#event-rules). */
export const eventRules = defineResource<EventRuleRow>({
  name: 'event_rule',
  table: 'event_rules',
  label: 'Event Rule List',
  description: 'Rules that check the events a webhook sends to the receiver and, when all conditions hold, launch templates or send notifications.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { required: true }),
    enabled: boolean({ default: true, helpText: 'A disabled rule refuses deliveries (403) and fires nothing.' }),
    source_type: choice(SOURCE_TYPES, { default: 'webhook_generic', helpText: 'What sends the events: it decides how deliveries are signed.' }),
    webhook_path: text({
      required: true, maxLength: 100, allowBlank: false, pattern: /^[A-Za-z0-9][A-Za-z0-9_-]*$/,
      patternMessage: 'Enter a slug: letters, digits, hyphens and underscores, starting with a letter or digit.',
      helpText: 'The last segment of the receiver URL, unique across the service.',
    }),
    webhook_key: { ...secret({ readOnly: true, helpText: 'The shared secret deliveries are signed with: read it at webhook_key/.' }) },
    conditions: listField(parseConditions, CONDITIONS_SCHEMA, 'Jinja2 expressions over event (the payload) and headers, as a list of {jinja2_expression, description}: all must hold.'),
    actions: composedField(EVENT_RULE_RUN_KINDS, (kinds) => listField((value) => parseActions(value, kinds as RunKinds), actionsSchema(kinds as RunKinds), ACTIONS_HELP, true), { helpText: ACTIONS_HELP, required: true }),
    throttle_seconds: integer({ default: 0, min: 0, max: 31_536_000, helpText: 'Least seconds between two firings; 0 for no limit.' }),
    last_fired_at: datetime({ readOnly: true }),
    fire_count: integer({ readOnly: true, default: 0 }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description', 'webhook_path'],
  ordering: 'name',
  unique: [['organization', 'name'], ['webhook_path']],
  summaryColumns: ['id', 'name', 'enabled'],
  related: { event_logs: reverse('event_log', 'event_logs', 'event_rule_id') },
  access: organizationAdminsManage(['enable', 'webhook_key', 'test']),
  hooks: {
    beforeWrite: async (tx, ctx, values, existing) => {
      if (!existing) values.webhook_key = newStoredRuleKey();
      await checkActions(tx, ctx, values, existing);
    },
    afterWrite: (tx, ctx) => ctx.service.caches.receivingRules.changed(tx),
    beforeDelete: (tx, ctx) => ctx.service.caches.receivingRules.changed(tx),
  },
  prepare: async (_db, _rows, ctx) => ctx.service.settings.get('SVC_URL_BASE'),
  decorate: (row, out, base) => {
    const url = `/api/v2/event_rules/${row.id}/`;
    out.webhook_url = `${typeof base === 'string' ? base : ''}${receiverPath(String(row.webhook_path))}`;
    out.related = { ...(out.related as object), webhook_key: `${url}webhook_key/`, test: `${url}test/`, enable: `${url}enable/`, disable: `${url}disable/` };
  },
});
