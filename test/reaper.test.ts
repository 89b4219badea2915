// The reaper after a crash: the real service runs as a child process on the embedded database, is
// killed with SIGKILL while a job runs, and is started again on the same data directory.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually } from './helpers/jobs.ts';

const root = path.resolve(import.meta.dirname, '..');
const PASSWORD = 'reaper-admin-pw';
const REAPED = /^Task was marked as running at system start up\. The system must have not shut down properly, so it has been marked as failed\.$/;
// A playbook name of its own, to find this run's processes among everyone else's.
const PLAYBOOK = `sleepy-${randomBytes(4).toString('hex')}.yml`;
// Far longer than the test waits: the run can only end because the next start stops it.
const SLEEP_SECONDS = 300;
const SLEEPY = `- hosts: all
  gather_facts: false
  tasks:
    - name: sleep
      command: sleep ${SLEEP_SECONDS}
    - name: after the sleep
      debug: msg="still here"
`;

interface Service {
  child: ChildProcess;
  url: string;
  output: string[];
}

/** Starts `node --import tsx src/main.ts` on the data directory, resolving once it listens. */
function startService(dataDir: string): Promise<Service> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^(POSTGRES_|SVC_|NODE_TEST)/.test(name)) env[name] = value;
  Object.assign(env, {
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_PASSWORD: PASSWORD,
    SVC_NODE_NAME: 'reaper-node',
    SVC_LISTEN_ADDRESS: '127.0.0.1',
    SVC_CREATE_DEMO_DATA: 'false',
    SVC_LOG_LEVEL: 'warn',
    SVC_ASSISTANT_ENABLED: 'false',
    NGINX_HTTP_PORT: '0',
    NGINX_HTTPS_PORT: '0',
  });
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output.join('')}`)), 60_000);
    const seen = (chunk: Buffer) => {
      output.push(chunk.toString());
      const listening = output.join('').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (listening) {
        clearTimeout(timer);
        resolve({ child, url: listening[1], output });
      }
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code ?? signal}) before listening:\n${output.join('')}`));
    });
  });
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function api(service: Service, method: string, url: string, body?: unknown): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(`${service.url}${url}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text, text };
}

async function created(service: Service, url: string, body: unknown): Promise<any> {
  const res = await api(service, 'POST', url, body);
  assert.equal(res.status, 201, `${url}: ${res.text}`);
  return res.body;
}

/** The processes (pid and command line) of this run: ansible-runner, ansible-playbook and the sleep task. */
function runProcesses(): { pid: number; command: string }[] {
  const listing = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return listing
    .split('\n')
    .map((line) => line.trim().match(/^(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), command: m[2] }))
    .filter((p) => p.command.includes(PLAYBOOK) || p.command === `sleep ${SLEEP_SECONDS}`);
}

describe('reaper after the service is killed with SIGKILL', () => {
  const services: Service[] = [];
  let dataDir = '';
  let repo: GitRepository | null = null;
  const strays = new Set<number>();
  // The killed run's private data directory, removed by the next start.
  let privateDir = '';

  after(async () => {
    for (const s of services) {
      s.child.kill('SIGTERM');
      await stopped(s.child);
    }
    // Whatever of the killed run is still alive (reported by the test) is ended here.
    for (const pid of strays) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (path.basename(privateDir).startsWith('drover-run-')) await rm(privateDir, { recursive: true, force: true });
    await repo?.remove();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('marks the running job failed at the next start, and the killed run does not go on', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'drover-reaper-'));
    repo = await makeRepository({ [PLAYBOOK]: SLEEPY });
    const first = await startService(dataDir);
    services.push(first);

    const org = (await api(first, 'GET', '/api/v2/organizations/Default/')).body;
    assert.equal((await api(first, 'PATCH', '/api/v2/settings/jobs/', { PROJECT_LOCAL_SOURCE_DIRS: [repo.root] })).status, 200);
    const project = await created(first, '/api/v2/projects/', { name: 'Sleepy', organization: org.id, scm_type: 'git', scm_url: `file://${repo.bare}` });
    await eventually(async () => (await api(first, 'GET', `/api/v2/projects/${project.id}/`)).body.status === 'successful', 60_000, 'the project sync');
    const inventory = await created(first, '/api/v2/inventories/', { name: 'Here', organization: org.id });
    await created(first, '/api/v2/hosts/', {
      name: 'localhost', inventory: inventory.id, variables: "ansible_connection: local\nansible_python_interpreter: '{{ ansible_playbook_python }}'",
    });
    const template = await created(first, '/api/v2/job_templates/', { name: 'Sleep', project: project.id, inventory: inventory.id, playbook: PLAYBOOK });
    const launched = await created(first, `/api/v2/job_templates/${template.id}/launch/`, {});
    const jobUrl = `/api/v2/jobs/${launched.job}/`;

    // Running, and the task's process has started.
    await eventually(async () => {
      const job = (await api(first, 'GET', jobUrl)).body;
      assert.ok(['pending', 'waiting', 'running'].includes(job.status), `job ended early: ${job.status} ${job.job_explanation}`);
      const processes = job.status === 'running' ? runProcesses() : [];
      // Both seen in one listing: the task's sleep and the ansible-playbook above it.
      return processes.some((p) => p.command === `sleep ${SLEEP_SECONDS}`) && processes.some((p) => p.command.includes('ansible-playbook'));
    }, 60_000, 'the job running its sleep task under ansible-playbook');
    const before = runProcesses();
    assert.ok(before.some((p) => p.command.includes('ansible-playbook')), `ansible-playbook runs: ${JSON.stringify(before)}`);
    for (const p of before) strays.add(p.pid);
    privateDir = before.map((p) => p.command.match(/ansible-runner run (\S+)\/runner /)?.[1]).find(Boolean) ?? '';

    first.child.kill('SIGKILL');
    await stopped(first.child);
    services.splice(services.indexOf(first), 1);

    const second = await startService(dataDir);
    services.push(second);
    assert.match(second.output.join(''), /Marked 1 run\(s\) left running by a previous start of node reaper-node as failed/);
    const job = (await api(second, 'GET', jobUrl)).body;
    assert.equal(job.status, 'failed');
    assert.equal(job.failed, true);
    assert.match(job.job_explanation, REAPED);
    assert.ok(job.finished, 'the reaped job has a finish time');
    // The embedded database came back whole: everything written before the kill is there.
    assert.equal((await api(second, 'GET', `/api/v2/job_templates/${template.id}/`)).status, 200);
    assert.equal((await api(second, 'GET', `/api/v2/projects/${project.id}/`)).body.status, 'successful');

    // The next start stopped the killed run's processes and removed its private directory.
    await eventually(async () => runProcesses().filter((p) => strays.has(p.pid)).length === 0, 5_000, 'the processes of the killed run to end').catch((err) => {
      throw new Error(`${(err as Error).message}; still running: ${JSON.stringify(runProcesses().filter((p) => strays.has(p.pid)))}`);
    });
    assert.ok(privateDir, 'the run directory was found on the runner command line');
    assert.equal(existsSync(privateDir), false, 'the private directory of the killed run is gone');
  });
});
