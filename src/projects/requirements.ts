import { access, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { RunContext } from '../runs/run-kind.ts';
import { allowedDirs, type ProjectSourcesView } from './local-sources.ts';

/** What installing requirements needs of a run. */
export type RequirementsRun = Pick<RunContext, 'output' | 'exec' | 'signal'> & { services: ProjectSourcesView };

const exists = (p: string) => access(p).then(() => true, () => false);

const UNREACHABLE = /(Failed to (download|get data)|Unable to (open|connect)|urlopen error|Name or service not known|Temporary failure in name resolution|Connection refused|timed out|HTTP Error)/i;

/**
 * Installs roles/requirements.yml and collections/requirements.yml with ansible-galaxy when
 * SVC_ROLES_ENABLED / SVC_COLLECTIONS_ENABLED allow it, into `target` beside the checkout, with
 * GALAXY_TASK_ENV in the environment and, with GALAXY_IGNORE_CERTS, without certificate checks.
 * Answers a problem to report, or null.
 */
export async function installRequirements(run: RequirementsRun, dir: string, target: string): Promise<string | null> {
  const settings = run.services.settings;
  const ignoreCerts = settings.get('GALAXY_IGNORE_CERTS') ? ['--ignore-certs'] : [];
  const env = { ...settings.get<Record<string, string> | null>('GALAXY_TASK_ENV') };
  const steps = [
    { enabled: settings.get('SVC_ROLES_ENABLED') !== false, file: 'roles/requirements.yml', what: 'roles', args: ['role', 'install', '--force', '-r', 'roles/requirements.yml', '-p', path.join(target, 'requirements_roles'), ...ignoreCerts] },
    { enabled: settings.get('SVC_COLLECTIONS_ENABLED') !== false, file: 'collections/requirements.yml', what: 'collections', args: ['collection', 'install', '--force', '-r', 'collections/requirements.yml', '-p', path.join(target, 'requirements_collections'), ...ignoreCerts] },
  ];
  for (const step of steps) {
    if (!(await exists(path.join(dir, step.file)))) continue;
    if (!step.enabled) {
      await run.output(`Skipping ${step.file}: installing ${step.what} is turned off.`);
      continue;
    }
    await run.output(`$ ansible-galaxy ${step.args.join(' ')}`);
    await mkdir(target, { recursive: true, mode: 0o700 });
    // Requirements may name local repositories (git+file://) in the directories allowed for them.
    const sandbox = { readable: [dir, ...allowedDirs(run.services)], writable: [target] };
    const result = await run.exec('ansible-galaxy', step.args, { cwd: dir, env, sandbox });
    if (run.signal.aborted) return null;
    if (result.code !== 0) {
      const reason = UNREACHABLE.test(result.stderr) ? ' the Galaxy server could not be reached' : ` ansible-galaxy exited with code ${result.code}`;
      return `Installing ${step.what} from ${step.file} failed:${reason} (see the output).`;
    }
  }
  return null;
}
