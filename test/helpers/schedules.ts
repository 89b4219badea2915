import { mkdir, writeFile } from 'node:fs/promises';
import type { TestApp } from './app.ts';
import { HELLO_PLAYBOOK, newInventory, newJobTemplate, newOrg, newProject } from './factories.ts';

export { rruleIn } from './factories.ts';

/** A job template on a manual project (no sync needed) and an inventory of one organization; fields override the template's. */
export async function scheduledTemplate(t: TestApp, fields: Record<string, unknown> = {}): Promise<{ org: number; inventory: number; template: any }> {
  const org = (await newOrg(t)).id;
  const dir = `${t.env.projectsRoot}/sched${org}`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/hello.yml`, HELLO_PLAYBOOK);
  const project = await newProject(t, org, { name: `Sched ${org}`, local_path: `sched${org}` });
  const inventory = (await newInventory(t, org, { name: `Sched ${org}`, local: false })).id;
  const template = await newJobTemplate(t, { name: `Sched ${org}`, project, inventory, playbook: 'hello.yml', allow_simultaneous: true, ...fields });
  return { org, inventory, template };
}
