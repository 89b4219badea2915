import type { RequestContext } from '../../api/context.ts';
import { ValidationError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { projectsRoot } from '../../projects/config.ts';
import { checkoutDirName, isDirectory, projectDir } from '../../projects/paths.ts';
import { scmUrlProblem } from '../../projects/scm-url.ts';
import { checkScmCredential } from '../../projects/scm-credential.ts';
import { queueProjectUpdate } from './project-updates.ts';

const SCM_FIELDS = ['scm_type', 'scm_url', 'scm_branch', 'scm_refspec'] as const;

const valueOf = (values: Values, existing: Row | null, name: string, column = name) => (name in values ? values[name] : existing?.[column]);

/** Checks a project's source settings and credential before it is written. */
export async function checkProject(tx: Queryable, ctx: RequestContext, values: Values, existing: Row | null): Promise<void> {
  const scmType = String(valueOf(values, existing, 'scm_type') ?? '');
  const errors: Record<string, string[]> = {};
  if (scmType === 'git') {
    const problem = scmUrlProblem(String(valueOf(values, existing, 'scm_url') ?? ''));
    if (problem) errors.scm_url = [problem];
    // The service places a git project's checkout itself.
    delete values.local_path;
  } else {
    for (const field of ['scm_url', 'scm_branch', 'scm_refspec', 'credential'] as const) {
      const value = valueOf(values, existing, field, field === 'credential' ? 'credential_id' : field);
      if (value && field in values) errors[field] = [`Manual projects do not use ${field}.`];
    }
    if ('scm_type' in values && existing?.scm_type === 'git') {
      Object.assign(values, { scm_url: '', scm_branch: '', scm_refspec: '', credential: null });
    }
    const localPath = String(valueOf(values, existing, 'local_path') ?? '');
    const dir = projectDir(projectsRoot(), localPath);
    if (!localPath) errors.local_path = ['Choose a directory under the projects root for a manual project.'];
    else if (!dir || localPath.startsWith('.')) errors.local_path = [`Invalid path choice "${localPath}": name one directory under the projects root.`];
    else if (!(await isDirectory(dir))) errors.local_path = [`Invalid path choice "${localPath}": no such directory under the projects root.`];
  }
  const credential = values.credential;
  if (typeof credential === 'number' && credential !== existing?.credential_id) {
    try {
      await checkScmCredential(ctx, tx, credential);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      Object.assign(errors, err.errors);
    }
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/** A git project gets its checkout directory and a first sync; a changed source syncs again. */
export async function afterProjectWrite(tx: Queryable, ctx: RequestContext, row: Row, existing: Row | null): Promise<void> {
  if (row.scm_type !== 'git') {
    if (row.status !== 'ok') await tx.query(`UPDATE projects SET status = 'ok', scm_revision = '' WHERE id = $1`, [row.id]);
    Object.assign(row, { status: 'ok', scm_revision: '' });
    return;
  }
  if (!row.local_path) {
    row.local_path = checkoutDirName(row.id, row.name);
    await tx.query('UPDATE projects SET local_path = $2 WHERE id = $1', [row.id, row.local_path]);
  }
  const sourceChanged = !existing || SCM_FIELDS.some((f) => existing[f] !== row[f]) || existing.credential_id !== row.credential_id;
  if (sourceChanged) await queueProjectUpdate(tx, ctx, row, 'manual');
}
