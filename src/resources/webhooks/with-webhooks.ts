import type { ResourceDeclaration } from '../../api/resource.ts';
import type { ResourceRow } from '../../db/database.ts';
import { webhookFields, webhookLinks } from './webhook-fields.ts';
import { checkWebhookValues, syncWebhookKey } from './webhook-hooks.ts';

/**
 * A template resource with webhooks (AWX's WebhookTemplateMixin): its declaration with the fields
 * webhook_service and webhook_credential, their checks and the key kept with the service (after
 * the declaration's own hooks), and related.webhook_key / webhook_receiver. Its table needs a
 * `webhook_key text NOT NULL DEFAULT ''` column; its routes come from templateWebhooks
 * (src/runs/webhooks/template-webhooks.ts).
 */
export function withWebhooks<R extends ResourceRow>(declaration: ResourceDeclaration<R>): ResourceDeclaration<R> {
  const { hooks = {}, decorate } = declaration;
  const plural = declaration.plural ?? `${declaration.name}s`;
  return {
    ...declaration,
    fields: { ...declaration.fields, ...webhookFields() },
    hooks: {
      ...hooks,
      beforeWrite: async (tx, ctx, values, existing) => {
        await hooks.beforeWrite?.(tx, ctx, values, existing);
        await checkWebhookValues(tx, ctx, values, existing);
      },
      afterWrite: async (tx, ctx, row, existing) => {
        await hooks.afterWrite?.(tx, ctx, row, existing);
        await syncWebhookKey(tx, declaration.table, row, existing);
      },
    },
    decorate: (row, out, prepared) => {
      decorate?.(row, out, prepared);
      out.related = { ...(out.related as object), ...webhookLinks(plural, row) };
    },
  };
}
