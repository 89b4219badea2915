import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { stat } from 'node:fs/promises';

export interface ScmInputs {
  username?: string;
  password?: string;
  ssh_key_data?: string;
  ssh_key_unlock?: string;
}

export interface GitAuth {
  env: Record<string, string>;
  /** Plain values to scrub from output. */
  secrets: string[];
  close(): Promise<void>;
}

// Answers git's and ssh's prompts from the environment, so no secret is ever written to disk.
const ASKPASS = `#!/bin/sh
case "$1" in
  Username*) printf '%s\\n' "$DROVER_SCM_USERNAME" ;;
  *) printf '%s\\n' "$DROVER_SCM_SECRET" ;;
esac
`;

const SSH_OPTIONS = '-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR';

/**
 * The environment git needs to authenticate with a Source Control credential: user name and
 * password (or token) through an askpass program reading the environment; an SSH key loaded from
 * memory into a private ssh-agent that lives only as long as the sync.
 */
export async function gitAuthentication(privateDir: string, inputs: ScmInputs | null): Promise<GitAuth> {
  const askpass = path.join(privateDir, 'askpass.sh');
  await writeFile(askpass, ASKPASS, { mode: 0o700 });
  const env: Record<string, string> = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: askpass,
    GIT_SSH_COMMAND: `ssh ${SSH_OPTIONS} -o BatchMode=yes`,
    DROVER_SCM_USERNAME: inputs?.username ?? '',
    DROVER_SCM_SECRET: inputs?.password ?? '',
  };
  const secrets = [inputs?.password, inputs?.ssh_key_unlock].filter((s): s is string => !!s);
  let agent: ChildProcess | null = null;
  if (inputs?.ssh_key_data) {
    const socket = path.join(privateDir, 'agent.sock');
    agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
    await waitForSocket(socket, agent);
    await addKey(socket, askpass, inputs.ssh_key_data, inputs.ssh_key_unlock ?? '');
    env.SSH_AUTH_SOCK = socket;
    env.GIT_SSH_COMMAND = `ssh ${SSH_OPTIONS}`;
  }
  return {
    env,
    secrets,
    close: async () => {
      if (agent && agent.exitCode === null) {
        agent.kill('SIGTERM');
        await once(agent, 'exit').catch(() => undefined);
      }
    },
  };
}

async function waitForSocket(socket: string, agent: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await stat(socket).then(() => true, () => false)) return;
    if (agent.exitCode !== null) break;
    await sleep(20);
  }
  throw new Error('ssh-agent did not start');
}

/** ssh-add reads the key from standard input; a passphrase comes from the askpass program. */
async function addKey(socket: string, askpass: string, key: string, passphrase: string): Promise<void> {
  await chmod(askpass, 0o700);
  const child = spawn('ssh-add', ['-q', '-'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SSH_AUTH_SOCK: socket, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: 'none', DROVER_SCM_SECRET: passphrase },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (d) => (errors += d));
  child.stdin!.end(key.endsWith('\n') ? key : `${key}\n`);
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`The SSH key of the credential could not be loaded${passphrase ? ' (is the passphrase right?)' : ''}: ${errors.trim()}`);
}
