import type { RequestContext } from '../../api/context.ts';
import { addManualDirectory } from '../../projects/manual-dirs.ts';
import { ValidationError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { ProjectRow } from '../../db/tables.ts';
import { branchProblem, refspecProblem } from '../../projects/git-values.ts';
import { checkLocalSource, projectFiles } from '../../projects/local-sources.ts';
import { checkoutDirName } from '../../projects/paths.ts';
import { localRepositoryPath, scmUrlProblem } from '../../projects/scm-url.ts';
import { checkScmCredential } from '../../projects/scm-credential.ts';
import { queueProjectUpdate } from '../../run-kinds/project-update/queue.ts';

const SCM_FIELDS = ['scm_type', 'scm_url', 'scm_branch', 'scm_refspec'] as const;

const valueOf = (values: Values, existing: Row | null, name: string, column = name) => (name in values ? values[name] : existing?.[column]);

// A git project's checkout directory name (checkoutDirName), own or another's: never a manual
// project's directory, so that switching between manual and git never shares one.
/** Names of the checkouts of source control projects under the projects root (checkoutDirName). */
export const CHECKOUT_NAME = /^_\d+__/;

/** The git source settings of a project as it will be stored: what git would misread, and local repositories outside the allowed directories. */
async function checkGitSource(ctx: RequestContext, values: Values, existing: ProjectRow | null, errors: Record<string, string[]>): Promise<void> {
  const switched = !existing || existing.scm_type !== 'git';
  const url = String(valueOf(values, existing, 'scm_url') ?? '');
  const problem = scmUrlProblem(url);
  if (problem) errors.scm_url = [problem];
  else if ('scm_url' in values || switched) {
    const local = localRepositoryPath(url);
    const checked = local ? await checkLocalSource(ctx.service, local) : null;
    if (checked && 'problem' in checked) errors.scm_url = [checked.problem];
  }
  const branch = 'scm_branch' in values ? branchProblem(String(values.scm_branch ?? '')) : null;
  if (branch) errors.scm_branch = [branch];
  const refspec = 'scm_refspec' in values ? refspecProblem(String(values.scm_refspec ?? '')) : null;
  if (refspec) errors.scm_refspec = [refspec];
  placeCheckout(values, existing);
}

/** An archive project's source: an http(s) URL of a tar or zip file, no branch or refspec. */
function checkArchiveSource(values: Values, existing: ProjectRow | null, errors: Record<string, string[]>): void {
  const url = String(valueOf(values, existing, 'scm_url') ?? '');
  if (!/^https?:\/\/[^\s]+$/i.test(url)) errors.scm_url = ['An archive project needs the http:// or https:// URL of a tar or zip file.'];
  for (const field of ['scm_branch', 'scm_refspec'] as const) {
    if (field in values && values[field]) errors[field] = [`Archive projects do not use ${field}.`];
  }
  placeCheckout(values, existing);
}

/**
 * The service places a git or archive project's checkout itself; a manual project turning into one
 * gets a directory of its own rather than syncing over the files of its manual directory.
 */
function placeCheckout(values: Values, existing: ProjectRow | null): void {
  if (existing && existing.scm_type === '') values.local_path = '';
  else delete values.local_path;
}

/** A manual project's directory: one of the projects root (or a link into an allowed directory), no other project's. */
async function localPathProblem(tx: Queryable, ctx: RequestContext, localPath: string, existing: ProjectRow | null): Promise<string | null> {
  if (!localPath) return 'Choose a directory under the projects root for a manual project.';
  if (localPath.startsWith('.')) return `Invalid path choice "${localPath}": name one directory under the projects root.`;
  if (CHECKOUT_NAME.test(localPath)) return `Invalid path choice "${localPath}": names like _<id>__<name> are the checkouts of source control projects; choose another directory.`;
  const found = await projectFiles(ctx.service, localPath);
  if ('problem' in found) return found.problem;
  const [other] = await tx.query('SELECT 1 FROM projects WHERE local_path = $1 AND id <> $2 LIMIT 1', [localPath, existing?.id ?? 0]);
  return other ? `Invalid path choice "${localPath}": another project uses this directory.` : null;
}

/** Checks a project's source settings and credential before it is written. */
export async function checkProject(tx: Queryable, ctx: RequestContext, values: Values, existing: ProjectRow | null): Promise<void> {
  const scmType = String(valueOf(values, existing, 'scm_type') ?? '');
  const errors: Record<string, string[]> = {};
  if (scmType === 'git') {
    await checkGitSource(ctx, values, existing, errors);
  } else if (scmType === 'archive') {
    checkArchiveSource(values, existing, errors);
  } else {
    for (const field of ['scm_url', 'scm_branch', 'scm_refspec', 'credential'] as const) {
      const value = valueOf(values, existing, field, field === 'credential' ? 'credential_id' : field);
      if (value && field in values) errors[field] = [`Manual projects do not use ${field}.`];
    }
    const switched = !existing || existing.scm_type !== '';
    if ('scm_type' in values && existing && existing.scm_type !== '') {
      Object.assign(values, { scm_url: '', scm_branch: '', scm_refspec: '', credential: null });
    }
    const localPath = String(valueOf(values, existing, 'local_path') ?? '');
    const problem = 'local_path' in values || switched ? await localPathProblem(tx, ctx, localPath, existing) : null;
    if (problem) errors.local_path = [problem];
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

/** A git or archive project gets its checkout directory and a first sync; a changed source syncs again. */
export async function afterProjectWrite(tx: Queryable, ctx: RequestContext, row: ProjectRow, existing: ProjectRow | null): Promise<void> {
  if (row.scm_type === '') {
    // A manual project's files are its directory's, read where it exists: nothing recorded applies.
    if (row.status !== 'ok' || row.playbook_files !== null) {
      await tx.query(`UPDATE projects SET status = 'ok', scm_revision = '', playbook_files = NULL, inventory_files = NULL WHERE id = $1`, [row.id]);
    }
    Object.assign(row, { status: 'ok', scm_revision: '', playbook_files: null, inventory_files: null });
    // Its directory was found on this node when it was saved: jobs may be placed here at once.
    if (row.local_path) await addManualDirectory(tx, ctx.service.env.nodeName, row.local_path);
    return;
  }
  if (!row.local_path) {
    row.local_path = checkoutDirName(row.id, row.name);
    await tx.query('UPDATE projects SET local_path = $2 WHERE id = $1', [row.id, row.local_path]);
  }
  const sourceChanged = !existing || SCM_FIELDS.some((f) => existing[f] !== row[f]) || existing.credential_id !== row.credential_id;
  if (sourceChanged) await queueProjectUpdate(tx, ctx, row, 'manual');
}
