import { mkdir, writeFile } from 'node:fs/promises';
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import { newOrg } from './factories.ts';

/** A job template on a manual project (no sync needed) and an inventory of one organization; fields override the template's. */
export async function scheduledTemplate(t: TestApp, fields: Record<string, unknown> = {}): Promise<{ org: number; inventory: number; template: any }> {
  const org = (await newOrg(t)).id;
  const dir = `${t.env.projectsRoot}/sched${org}`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/hello.yml`, '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hello\n');
  const project = await t.post('/api/v2/projects/', { name: `Sched ${org}`, organization: org, local_path: `sched${org}` });
  assert.equal(project.status, 201, project.text);
  const inventory = (await t.post('/api/v2/inventories/', { name: `Sched ${org}`, organization: org })).body.id;
  const template = await t.post('/api/v2/job_templates/', { name: `Sched ${org}`, project: project.body.id, inventory, playbook: 'hello.yml', allow_simultaneous: true, ...fields });
  assert.equal(template.status, 201, template.text);
  return { org, inventory, template: template.body };
}

/** An rrule whose first occurrence is `seconds` from now (UTC), repeating every `interval` minutes. */
export function rruleIn(seconds: number, extra = 'FREQ=MINUTELY;INTERVAL=60'): string {
  const at = new Date(Date.now() + seconds * 1000);
  const stamp = at.toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `DTSTART:${stamp}Z RRULE:${extra}`;
}
