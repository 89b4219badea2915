import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DISCOVERY_LIMITS, findInventoryFiles, findPlaybooks, looksLikeYamlInventory, scanProject } from '../src/projects/discovery.ts';

async function project(files: Record<string, string | { content: string; mode: number }>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'discovery-'));
  for (const [file, value] of Object.entries(files)) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, typeof value === 'string' ? value : value.content);
    if (typeof value !== 'string') await chmod(target, value.mode);
  }
  return dir;
}

const PLAY = '---\n- name: Configure\n  hosts: all\n  tasks: []\n';

describe('project discovery', () => {
  const made: string[] = [];
  const make = async (files: Parameters<typeof project>[0]) => {
    const dir = await project(files);
    made.push(dir);
    return dir;
  };
  after(async () => {
    for (const dir of made) await rm(dir, { recursive: true, force: true });
  });

  describe('playbooks', () => {
    let dir: string;
    let outside: string;
    before(async () => {
      dir = await make({
        'site.yml': PLAY,
        'B-deploy.yaml': '- import_playbook: site.yml\n',
        'a-legacy.yml': '- include: site.yml\n',
        'nested/deeper/play.yml': '- hosts: web\n  vars:\n    token: !vault |\n      6162\n  roles: [common]\n',
        'secret.yml': '$ANSIBLE_VAULT;1.1;AES256\n6162636465\n',
        // Broken YAML still shows: running it then reports the syntax error.
        'broken.yml': '- hosts: all\n  tasks: [unclosed\n',
        'vars.yml': 'packages:\n  - nginx\n',
        'inventory.yml': 'webservers:\n  hosts:\n    web1:\n',
        'README.md': '- hosts: all\n',
        'template.yml.j2': '- hosts: all\n',
        'roles/common/tasks/main.yml': '- include: other.yml\n',
        'roles/common/playbook.yml': PLAY,
        'tasks/setup.yml': '- hosts: all\n',
        'group_vars/all.yml': 'hosts: [a, b]\n',
        'host_vars/web1.yml': 'hosts: x\n',
        '.github/workflow.yml': PLAY,
        '.hidden.yml': PLAY,
        'molecule/default/converge.yml': PLAY,
      });
      outside = await make({ 'outside.yml': PLAY, 'dir/inner.yml': PLAY });
      await symlink(path.join(dir, 'site.yml'), path.join(dir, 'alias.yml'));
      await symlink(path.join(outside, 'outside.yml'), path.join(dir, 'escape.yml'));
      await symlink(path.join(outside, 'dir'), path.join(dir, 'linked-dir'));
      await symlink('/dev/zero', path.join(dir, 'zero.yml'));
      execFileSync('mkfifo', [path.join(dir, 'pipe.yml')]);
    });

    it('lists YAML files with a play line or a vault header, sorted case-insensitively, skipping roles, tasks, vars and hidden paths', async () => {
      assert.deepEqual(await findPlaybooks(dir), [
        'a-legacy.yml',
        'alias.yml',
        'B-deploy.yaml',
        'broken.yml',
        'molecule/default/converge.yml',
        'nested/deeper/play.yml',
        'secret.yml',
        'site.yml',
      ]);
    });

    it('follows no link out of the project, nor into a device, a pipe or a linked directory', async () => {
      const found = await findPlaybooks(dir);
      for (const name of ['escape.yml', 'linked-dir/inner.yml', 'zero.yml', 'pipe.yml']) assert.ok(!found.includes(name), name);
    });

    it('answers nothing for a missing directory or a file', async () => {
      assert.deepEqual(await findPlaybooks(path.join(dir, 'does-not-exist')), []);
      assert.deepEqual(await findPlaybooks(path.join(dir, 'site.yml')), []);
    });
  });

  describe('limits', () => {
    it('stops at the depth, entry and byte limits and says so', async () => {
      const deep = await make({ 'a/b/c/d/play.yml': PLAY, 'top.yml': PLAY });
      assert.deepEqual(await findPlaybooks(deep), ['a/b/c/d/play.yml', 'top.yml']);
      const shallow = await scanProject(deep, { ...DISCOVERY_LIMITS, maxDepth: 2 });
      assert.deepEqual([shallow.playbooks, shallow.truncated], [['top.yml'], true]);

      const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${String(i).padStart(2, '0')}.yml`, PLAY]));
      const many = await make(files);
      const few = await scanProject(many, { ...DISCOVERY_LIMITS, maxEntries: 10 });
      assert.equal(few.playbooks.length, 10);
      assert.equal(few.truncated, true);
      assert.equal((await scanProject(many)).truncated, false);

      const late = await make({ 'late.yml': `${'# padding\n'.repeat(120_000)}- hosts: all\n`, 'early.yml': PLAY });
      assert.deepEqual(await findPlaybooks(late), ['early.yml']);
      assert.deepEqual(await findPlaybooks(late, { ...DISCOVERY_LIMITS, maxFileBytes: 4 * 1024 * 1024 }), ['early.yml', 'late.yml']);
      const budget = await scanProject(many, { ...DISCOVERY_LIMITS, maxTotalBytes: PLAY.length * 3 });
      assert.deepEqual([budget.playbooks.length, budget.truncated], [3, true]);
    });
  });

  describe('inventory files', () => {
    it('lists inventory names, .ini files, scripts, ini-like files without extension and YAML inventories', async () => {
      const dir = await make({
        hosts: '[web]\nweb1\n',
        'inventory/hosts': '# comments are fine when the name says inventory\n',
        'inventories/staging': '[db]\ndb1 ansible_host=10.0.0.5\n[db:vars]\nx=1\n',
        'inventories/prod.ini': '; any content\n',
        'scripts/ec2.py': { content: '#!/usr/bin/env python3\nprint("{}")\n', mode: 0o755 },
        'inventories/cloud.yml': 'all:\n  children:\n    web:\n      hosts:\n        web1:\n',
        'inventories/aws_ec2.yml': 'plugin: amazon.aws.aws_ec2\nregions: [eu-west-1]\n',
        'inventories/empty-group.yaml': 'ungrouped:\n  hosts:\n    localhost:\n',
        'site.yml': PLAY,
        'vars.yml': 'packages:\n  - nginx\n',
        'settings.yml': 'all:\n  unrelated: true\n',
        LICENSE: 'MIT License\n\nCopyright...\n',
        Makefile: 'all:\n\tmake build\n',
        'notes.txt': 'web1\n',
        'group_vars/all': 'x=1\n',
        'roles/r/hosts': '[web]\n',
        '.hidden/hosts': '[web]\n',
      });
      assert.deepEqual(await findInventoryFiles(dir), [
        'hosts',
        'inventories/aws_ec2.yml',
        'inventories/cloud.yml',
        'inventories/empty-group.yaml',
        'inventories/prod.ini',
        'inventories/staging',
        'inventory/hosts',
        'scripts/ec2.py',
      ]);
      assert.deepEqual(await findPlaybooks(dir), ['site.yml']);
    });

    it('lists at most 50', async () => {
      const dir = await make(Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`inv/env${i}.ini`, '[all]\n'])));
      const found = await findInventoryFiles(dir);
      assert.equal(found.length, 50);
      assert.deepEqual(found, [...found].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    });

    it('reads YAML inventories safely', () => {
      assert.equal(looksLikeYamlInventory('web:\n  hosts: {a: null}\n'), true);
      assert.equal(looksLikeYamlInventory('- hosts: all\n'), false);
      assert.equal(looksLikeYamlInventory('a: [unclosed\n'), false);
      assert.equal(looksLikeYamlInventory('web:\n'), false);
      // A billion laughs inside a group's vars: it would read as an inventory if it were expanded.
      const levels = 'abcdefghij'.split('');
      const anchors = levels.map((name, i) => `    ${name}: &${name} [${Array(9).fill(i === 0 ? 'lol' : `*${levels[i - 1]}`).join(', ')}]`);
      assert.equal(looksLikeYamlInventory(`all:\n  vars:\n${anchors.slice(0, 2).join('\n')}\n`), true);
      assert.equal(looksLikeYamlInventory(`all:\n  vars:\n${anchors.join('\n')}\n`), false);
    });
  });
});
