import { timingSafeEqual } from 'node:crypto';
import type { LiveClient } from './client.ts';
import { jsonTextTooDeep, TooDeepError } from '../db/json-depth.ts';
import { liveLimits } from './limits.ts';

const DENIED = { error: 'access denied to channel' };

/** Groups joined by name rather than by run: AWX's jobs-status_changed, jobs-summary, schedules-changed. */
const NAMED_GROUPS: Record<string, readonly string[]> = {
  jobs: ['status_changed', 'summary'],
  schedules: ['changed'],
};

function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * One message from a client, as AWX's EventConsumer takes it: {"groups": {...}, "xrftoken": ...}.
 * The groups given replace those the client was in; it is told which it is in, left and joined.
 * Entries it may not join are answered with an error each and left out.
 */
export async function handleClientMessage(client: LiveClient, text: string): Promise<void> {
  let data: unknown;
  try {
    if (jsonTextTooDeep(text)) throw new TooDeepError();
    data = JSON.parse(text);
  } catch {
    client.send({ error: 'Messages must be JSON objects.' });
    return;
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    client.send({ error: 'Messages must be JSON objects.' });
    return;
  }
  const message = data as Record<string, unknown>;
  if (client.xrfToken !== null && !sameToken(message.xrftoken, client.xrfToken)) {
    client.send(DENIED);
    return;
  }
  if (!('groups' in message)) return;
  const groups = message.groups;
  if (typeof groups !== 'object' || groups === null || Array.isArray(groups)) {
    client.send({ error: 'groups must be an object of group names to lists.' });
    return;
  }
  const entryCount = Object.values(groups).reduce((n: number, v) => n + (Array.isArray(v) ? v.length : 0), 0);
  if (entryCount > liveLimits.maxGroups) {
    client.send({ error: `A client may be in at most ${liveLimits.maxGroups} groups.` });
    return;
  }
  const wanted = new Set<string>();
  const eventRuns = new Set<number>();
  for (const [name, entries] of Object.entries(groups)) {
    if (!Array.isArray(entries)) {
      client.send(DENIED);
      return;
    }
    for (const entry of entries) {
      const joined = await admit(client, name, entry);
      if (!joined) continue;
      wanted.add(joined.group);
      if (joined.runId !== undefined) eventRuns.add(joined.runId);
    }
  }
  const current = new Set(client.groups);
  const left = [...current].filter((g) => !wanted.has(g));
  const joined = [...wanted].filter((g) => !current.has(g));
  client.setGroups(wanted, eventRuns);
  client.send({ groups_current: [...wanted], groups_left: left, groups_joined: joined });
}

/** Whether the client may join one entry of a group: the group's full name, or null (after telling it why). */
async function admit(client: LiveClient, name: string, entry: unknown): Promise<{ group: string; runId?: number } | null> {
  const kind = client.eventStreamOfGroup(name)?.kind;
  if (kind) {
    const id = typeof entry === 'string' && /^\d+$/.test(entry) ? Number(entry) : entry;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0 && (await client.mayRead(kind, id))) return { group: `${name}-${id}`, runId: id };
    client.send(deniedEntry(name, entry));
    return null;
  }
  if (name === 'control' && entry === `limit_reached_${client.ctx.user?.id}`) return { group: `control-${entry}` };
  if (Object.hasOwn(NAMED_GROUPS, name) && typeof entry === 'string' && NAMED_GROUPS[name].includes(entry)) return { group: `${name}-${entry}` };
  client.send(deniedEntry(name, entry));
  return null;
}

const deniedEntry = (group: string, entry: unknown) => ({
  error: `access denied to channel ${group} for resource id ${typeof entry === 'string' || typeof entry === 'number' ? entry : JSON.stringify(entry)}`,
});
