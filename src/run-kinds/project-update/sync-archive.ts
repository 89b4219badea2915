import { lookupsOf } from '../../resources/credentials/dynamic-inputs.ts';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { UnifiedJobRow } from '../../db/tables.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';
import { downloadArchive, unpackProjectArchive } from '../../projects/archive-source.ts';
import { archiveCopyPath, requirementsDir } from '../../projects/paths.ts';
import { installRequirements } from '../../projects/requirements.ts';
import { scmInputs } from '../../projects/scm-credential.ts';

/**
 * Updates an archive project: downloads its URL, unpacks it into a new directory beside the
 * checkout and puts it in the checkout's place, so a failed update leaves the last good files.
 * Its revision is the archive's SHA-1, as AWX records it (docs/projects.md#archive-projects).
 */
export async function syncArchive(job: UnifiedJobRow, run: RunContext, dir: string, recordFound: (dir: string) => Promise<void>): Promise<RunOutcome> {
  await run.output(`Downloading the archive ${job.scm_url}.`);
  const downloaded = await downloadArchive(run.services, String(job.scm_url), await scmInputs(run.db, job.credential_id, lookupsOf(run.services, run.signal)), run.signal);
  if ('problem' in downloaded) return { status: 'failed', explanation: downloaded.problem };
  const incoming = path.join(path.dirname(dir), `.incoming-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(incoming, { mode: 0o700 });
    const unpacked = await unpackProjectArchive(run.services, downloaded.bytes, incoming);
    if ('problem' in unpacked) return { status: 'failed', explanation: unpacked.problem };
    await rm(dir, { recursive: true, force: true });
    await rename(incoming, dir);
    const copy = archiveCopyPath(run.services.env.projectsRoot, String(job.local_path));
    await mkdir(path.dirname(copy), { recursive: true, mode: 0o700 });
    await writeFile(copy, downloaded.bytes, { mode: 0o600 });
    await run.output(`Unpacked ${unpacked.files} files of the archive at revision ${downloaded.revision}.`);
  } finally {
    await rm(incoming, { recursive: true, force: true });
  }
  const updates = { scm_revision: downloaded.revision };
  const problem = await installRequirements(run, dir, requirementsDir(run.services.env.projectsRoot, String(job.local_path)));
  if (problem) return { status: 'failed', explanation: problem, updates };
  await recordFound(dir);
  return { status: 'successful', updates };
}
