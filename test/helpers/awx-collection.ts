import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/** Where Debian's ansible package puts AWX's own collection (installed by npm run setup). */
export const AWX_COLLECTION = '/usr/lib/python3/dist-packages/ansible_collections/awx/awx';

export interface TaskOutcome {
  task: string;
  failed: boolean;
  changed: boolean;
  msg?: string;
  result: Record<string, any>;
}

export interface PlaybookRun {
  tasks: TaskOutcome[];
  /** Tasks that failed, as "name: message" (ignore_errors keeps the play going so all are seen). */
  failures: string[];
  /** Warnings and deprecations the collection printed. */
  warnings: string[];
  stderr: string;
}

/** How the collection reaches the service: its own username/password login, or a token. */
export type CollectionAuth = { username: string; password: string } | { token: string };

/**
 * Runs one play on localhost whose tasks use the awx.awx modules against `host`, every task with
 * ignore_errors so one failure does not hide the next, and answers each task's result (the
 * ansible.posix.json callback).
 */
export async function runCollectionPlay(host: string, auth: CollectionAuth, tasks: object[], vars: Record<string, unknown> = {}): Promise<PlaybookRun> {
  const dir = await mkdtemp(path.join(tmpdir(), 'drover-awx-collection-'));
  try {
    const connection =
      'token' in auth ? { controller_host: host, controller_oauthtoken: auth.token } : { controller_host: host, controller_username: auth.username, controller_password: auth.password };
    const play = [{
      hosts: 'localhost',
      gather_facts: false,
      connection: 'local',
      vars,
      module_defaults: { 'group/awx.awx.controller': connection },
      tasks: tasks.map((task) => ({ ignore_errors: true, ...task })),
    }];
    // JSON is YAML: the playbook needs no YAML writer.
    await writeFile(path.join(dir, 'play.yml'), JSON.stringify(play, null, 1));
    const run = promisify(execFile);
    const { stdout, stderr } = await run('ansible-playbook', ['-i', 'localhost,', 'play.yml'], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        ANSIBLE_STDOUT_CALLBACK: 'ansible.posix.json',
        ANSIBLE_LOCAL_TEMP: path.join(dir, 'tmp'),
        ANSIBLE_PYTHON_INTERPRETER: '/usr/bin/python3',
        ANSIBLE_NOCOLOR: '1',
      },
    }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      if (err.stdout) return { stdout: err.stdout, stderr: err.stderr ?? '' };
      throw new Error(`ansible-playbook did not run: ${err.message}\n${err.stderr ?? ''}`);
    });
    const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
    const outcomes: TaskOutcome[] = [];
    const warnings: string[] = [];
    for (const entry of report.plays[0].tasks) {
      const result = entry.hosts.localhost ?? {};
      outcomes.push({ task: entry.task.name, failed: result.failed === true, changed: result.changed === true, msg: result.msg, result });
      warnings.push(...(result.warnings ?? []), ...(result.deprecations ?? []).map((d: { msg: string }) => d.msg));
    }
    const failures = outcomes.filter((o) => o.failed).map((o) => `${o.task}: ${o.msg ?? JSON.stringify(o.result).slice(0, 500)}`);
    return { tasks: outcomes, failures, warnings, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
