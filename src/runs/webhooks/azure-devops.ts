/**
 * Azure DevOps service hooks ("Web Hooks" consumer): they sign nothing, and authenticate with
 * HTTP basic authentication, which the subscription sets: any user name, the template's webhook
 * key as the password. The event is the payload's eventType, the delivery's id its id. Pushes
 * and pull request creations and updates launch. Statuses go to the Git commit statuses API of
 * the payload's repository (resource.repository.url), with the token as a basic password.
 */
import { createHash } from 'node:crypto';
import { commitInPath, header, pathValue, refAt, sameBytes, STATUS_CONTEXT, type WebhookProvider } from './provider.ts';

const PR_REF = 'resource.lastMergeSourceCommit.commitId';
const REF_PATHS: Record<string, string> = { 'git.push': 'resource.refUpdates.0.newObjectId', 'git.pullrequest.created': PR_REF, 'git.pullrequest.updated': PR_REF };

const STATES: Record<string, string> = { pending: 'pending', running: 'pending', successful: 'succeeded', failed: 'failed', error: 'error', canceled: 'failed' };

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** The password of a basic Authorization header, or null. */
function basicPassword(authorization: string): string | null {
  const match = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization.trim());
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/** The repository's API URL (https://dev.azure.com/{org}/{project}/_apis/git/repositories/{id}), checked. */
function repositoryApi(payload: unknown): string | null {
  const url = pathValue(payload, 'resource.repository.url');
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
    if (!/\/_apis\/git\/repositories\/[\w.-]+\/?$/.test(parsed.pathname) || parsed.search || parsed.hash) return null;
    return `${parsed.origin}${parsed.pathname.replace(/\/$/, '')}`;
  } catch {
    return null;
  }
}

export const azureDevops: WebhookProvider = {
  service: 'azure_devops',
  label: 'Azure DevOps',
  authentic(delivery, key) {
    const password = basicPassword(header(delivery, 'authorization'));
    return password !== null && password !== '' && sameBytes(digest(key), digest(password));
  },
  read(delivery) {
    const type = typeof delivery.payload.eventType === 'string' ? delivery.payload.eventType : '';
    if (!(type in REF_PATHS)) return { launch: false, reason: `event ${type || '(none)'}` };
    const guid = typeof delivery.payload.id === 'string' ? delivery.payload.id : '';
    const ref = refAt(delivery.payload, REF_PATHS[type]);
    const repository = repositoryApi(delivery.payload);
    const sha = commitInPath(ref);
    const statusApi = repository && sha ? `${repository}/commits/${sha}/statuses?api-version=7.1` : null;
    return { launch: true, type, guid, ref, statusApi };
  },
  statusRequest: (token, state, targetUrl) => ({
    headers: { Authorization: `Basic ${Buffer.from(`:${token}`).toString('base64')}` },
    body: { state: STATES[state], description: `Job ${state}`, targetUrl, context: { name: STATUS_CONTEXT.split('/')[1], genre: STATUS_CONTEXT.split('/')[0] } },
  }),
};
