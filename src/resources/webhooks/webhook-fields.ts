/**
 * Webhooks of a template (AWX's WebhookTemplateMixin), for any template resource: the fields
 * webhook_service and webhook_credential, the key the service signs with (webhook_key: a column
 * of the template's table, encrypted, shown only at /webhook_key/), and the links the template shows.
 */
import { randomInt } from 'node:crypto';
import { choice, ref } from '../../api/fields.ts';
import type { Row } from '../../db/database.ts';

import { decryptSecret, encryptSecret } from '../../secrets/encryption.ts';

/** Services webhook requests may come from: AWX's, then Gitea and Azure DevOps. */
export const WEBHOOK_SERVICES = [
  ['', '---------'], ['github', 'GitHub'], ['gitlab', 'GitLab'], ['bitbucket_dc', 'BitBucket DataCenter'], ['gitea', 'Gitea'], ['azure_devops', 'Azure DevOps'],
] as const;

/** The field declarations a template with webhooks has. */
export const webhookFields = () => ({
  webhook_service: choice(WEBHOOK_SERVICES, { default: '', helpText: 'Service that webhook requests will be accepted from' }),
  webhook_credential: ref('credential', { helpText: 'Personal Access Token for posting back the status to the service API' }),
});

export const WEBHOOK_KEY_PURPOSE = 'template.webhook_key';

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A new key: 50 random letters and digits (AWX's length), as stored (encrypted). */
export function newStoredWebhookKey(): string {
  const key = Array.from({ length: 50 }, () => KEY_ALPHABET[randomInt(KEY_ALPHABET.length)]).join('');
  return encryptSecret(WEBHOOK_KEY_PURPOSE, key);
}

/** The template's key in clear, '' when it has none. */
export const webhookKeyOf = (template: Row): string =>
  typeof template.webhook_key === 'string' && template.webhook_key ? decryptSecret(WEBHOOK_KEY_PURPOSE, template.webhook_key) : '';

/** related.webhook_key, related.webhook_receiver ('' without a service), as AWX shows them. */
export function webhookLinks(plural: string, template: Row): Record<string, string> {
  const base = `/api/v2/${plural}/${template.id}/`;
  return {
    webhook_key: `${base}webhook_key/`,
    webhook_receiver: template.webhook_service ? `${base}${template.webhook_service}/` : '',
  };
}
