import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../db/database.ts';

export interface FactCache {
  dir: string;
  /** Stores the facts of hosts whose cache file the run wrote or changed. Answers those hosts' ids. */
  save(db: Queryable): Promise<number[]>;
}

const safeName = (host: string) => !host.includes('/') && host !== '.' && host !== '..';

/**
 * Ansible's jsonfile fact cache for one run, in `dir` (ansible-runner points Ansible at
 * <private data dir>/artifacts/<ident>/fact_cache itself) (AWX's use_fact_cache): each host's stored
 * ansible_facts are written before the run; after it, the files Ansible wrote back become the
 * hosts' ansible_facts and ansible_facts_modified. With `timeoutSeconds`, only facts modified within
 * that many seconds are written.
 */
export async function prepareFactCache(db: Queryable, inventoryIds: number | readonly number[], dir: string, timeoutSeconds = 0): Promise<FactCache> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // A run over several inventories names each host in one of them only (docs/job-templates.md, "Several inventories").
  const ids = [inventoryIds].flat();
  // ANSIBLE_FACT_CACHE_TIMEOUT: facts older than this are stale and not given to the playbook.
  const hosts = await db.query<{ name: string; ansible_facts: Record<string, unknown> }>(
    `SELECT name, ansible_facts FROM hosts WHERE inventory_id = ANY($1::int[]) AND ansible_facts <> '{}'::jsonb
     AND ($2::int = 0 OR ansible_facts_modified >= now() - make_interval(secs => $2::int))`,
    [ids, timeoutSeconds],
  );
  const written = new Map<string, number>();
  for (const host of hosts) {
    if (!safeName(host.name)) continue;
    const file = path.join(dir, host.name);
    await writeFile(file, JSON.stringify(host.ansible_facts), { mode: 0o600 });
    written.set(host.name, (await stat(file)).mtimeMs);
  }
  return {
    dir,
    async save(target) {
      const facts: { name: string; facts: unknown }[] = [];
      for (const name of await readdir(dir)) {
        const file = path.join(dir, name);
        if ((await stat(file)).mtimeMs === written.get(name)) continue;
        try {
          facts.push({ name, facts: JSON.parse(await readFile(file, 'utf8')) });
        } catch {
          // A file Ansible did not finish writing is left out.
        }
      }
      if (!facts.length) return [];
      const rows = await target.query<{ id: number }>(
        `UPDATE hosts SET ansible_facts = f.facts, ansible_facts_modified = now()
         FROM jsonb_to_recordset($2::jsonb) AS f(name text, facts jsonb)
         WHERE hosts.inventory_id = ANY($1::int[]) AND hosts.name = f.name RETURNING hosts.id`,
        [ids, JSON.stringify(facts)],
      );
      return rows.map((row) => row.id);
    },
  };
}
