/** jinja2: a template rendered in the sandbox over the names of the template's inventory's hosts and groups, answering a JSON list. */
import type { Queryable, Row } from '../../../db/database.ts';
import { renderSandboxed, SandboxError } from '../../../templating/sandbox.ts';
import { SourceError, toChoices } from './choices.ts';

// Names given to a template at most, each of hosts and groups (the sandbox's heap is small).
const MAX_NAMES = 10_000;
const RENDER_LIMITS = { timeoutMs: 2_000, maxOutputChars: 1_000_000 };

async function namesOf(db: Queryable, table: 'hosts' | 'groups', inventory: number | null): Promise<string[]> {
  if (!inventory) return [];
  const rows = await db.query<{ name: string }>(`SELECT name FROM ${table} WHERE inventory_id = $1 ORDER BY name, id LIMIT ${MAX_NAMES}`, [inventory]);
  return rows.map((r) => r.name);
}

export async function jinjaChoices(db: Queryable, template: Row, d: Record<string, unknown>): Promise<string[]> {
  const inventory = template.inventory_id as number | null;
  const context = { hosts: await namesOf(db, 'hosts', inventory), groups: await namesOf(db, 'groups', inventory) };
  let text: string;
  try {
    text = await renderSandboxed(d.template as string, context, { ...RENDER_LIMITS, organization: template.organization_id as number | null });
  } catch (err) {
    if (err instanceof SandboxError) throw new SourceError(err.message);
    throw err;
  }
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    throw new SourceError('The template did not output JSON (it must output a JSON list, e.g. {{ hosts | tojson }}).');
  }
  if (!Array.isArray(list)) throw new SourceError('The template must output a JSON list.');
  return toChoices(list);
}
