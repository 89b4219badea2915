import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { spawnService, type ServiceProcess } from './helpers/service-process.ts';
import { standaloneValues } from './helpers/standalone.ts';
import { eventually } from './helpers/jobs.ts';

const ADMIN = { username: 'admin', password: 'isolation-kill-pw' };

/** Command lines of the machine's processes that hold `text`. */
async function processesWith(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ');
    if (cmdline.includes(text)) found.push(`${entry}: ${cmdline}`);
  }
  return found;
}

describe('a run dies with its node', () => {
  let service: ServiceProcess;
  let dataDir: string;
  let inventory: number;

  const startSleep = async (seconds: number) => {
    const res = await service.api('POST', '/api/v2/ad_hoc_commands/', { inventory, module_name: 'shell', module_args: `sleep ${seconds}`, limit: 'localhost' });
    assert.equal(res.status, 201, res.text);
    await eventually(async () => (await processesWith(`sleep ${seconds}`)).length > 0, 60_000, 'the command runs');
    return res.body;
  };

  before(async () => {
    const standalone = await standaloneValues('isolation-kill', {
      NGINX_HTTP_PORT: '0', NGINX_HTTPS_PORT: '0', SVC_LISTEN_ADDRESS: '127.0.0.1', SVC_ADMIN_PASSWORD: ADMIN.password,
    });
    dataDir = standalone.dataDir;
    service = await spawnService(standalone.values, ADMIN);
    assert.match(service.output.join(''), /Run isolation: bubblewrap/);
    inventory = (await service.api('GET', '/api/v2/inventories/?name=Demo+Inventory')).body.results[0].id;
  });
  after(async () => {
    await service?.stop();
  });

  it('cancel stops every process of the sandbox', async () => {
    const seconds = randomInt(100_000, 200_000);
    const command = await startSleep(seconds);
    assert.equal((await service.api('POST', `/api/v2/ad_hoc_commands/${command.id}/cancel/`)).status, 202);
    await eventually(async () => (await processesWith(`sleep ${seconds}`)).length === 0, 30_000, 'the sleep ends with the cancel');
    await eventually(async () => (await service.api('GET', `/api/v2/ad_hoc_commands/${command.id}/`)).body.status === 'canceled', 30_000, 'canceled');
  });

  it('SIGKILL of the service leaves no Ansible process behind', async () => {
    const seconds = randomInt(200_000, 300_000);
    await startSleep(seconds);
    assert.ok((await processesWith(dataDir)).some((p) => p.includes('ansible')), 'ansible runs under the data directory before the kill');
    service.child.kill('SIGKILL');
    await eventually(async () => (await processesWith(`sleep ${seconds}`)).length === 0, 30_000, 'the command is gone');
    await eventually(async () => (await processesWith(dataDir)).length === 0, 30_000, 'no process of the run is left');
  });
});
