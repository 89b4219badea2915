import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from './env.ts';

/**
 * Everything drover keeps on disk (the embedded database, the secret key, TLS key, project
 * checkouts, run directories with credentials) is for its own user only: directories 0700, files
 * 0600, whatever umask the service was started with.
 */
export const PRIVATE_UMASK = 0o077;

/** Files and directories created from now on (by this process and the programs it starts) get no group or other permission. */
export function restrictNewFiles(): void {
  process.umask(PRIVATE_UMASK);
}

const ownUid = (): number | null => process.getuid?.() ?? null;

/**
 * Makes `dir` (with missing parents) and makes sure it is private: a directory owned by the user
 * drover runs as, without group or other permission (a looser mode is tightened). A directory of
 * another user, or one whose mode cannot be fixed, is refused: its owner could read or replace
 * what drover keeps there. `what` names it in the message. A symbolic link is followed only with
 * `followLink` (the data directory may be one; directories drover makes inside it may not).
 */
export async function ensurePrivateDirectory(dir: string, what: string, options: { followLink?: boolean } = {}): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = options.followLink ? await stat(dir) : await lstat(dir);
  if (!st.isDirectory()) throw new ConfigError(`drover cannot start: ${what} ${dir} is not a directory`);
  const uid = ownUid();
  if (uid !== null && st.uid !== uid) {
    throw new ConfigError(
      `drover cannot start: ${what} ${dir} belongs to user id ${st.uid}, not to the user drover runs as (${uid}); ` +
        'it must be private to drover: give it to this user (chown) or choose another directory',
    );
  }
  if ((st.mode & 0o077) === 0) return;
  try {
    await chmod(dir, st.mode & 0o700);
  } catch (err) {
    throw new ConfigError(`drover cannot start: ${what} ${dir} is open to other users and cannot be made private: ${(err as Error).message}`);
  }
}

/**
 * Takes group and other permission away from every file and directory under `root` that belongs
 * to drover's user, for data directories made by earlier versions or with a looser umask.
 * Symbolic links are neither followed nor changed (a project checkout may hold links to anywhere).
 * Call it only on a directory ensurePrivateDirectory has made private: then no other user can
 * swap an entry between the check and the change. Answers how many entries it changed.
 */
export async function restrictTree(root: string): Promise<number> {
  const uid = ownUid();
  let changed = 0;
  const visit = async (entry: string): Promise<void> => {
    const st = await lstat(entry).catch(() => null);
    if (!st || !(st.isFile() || st.isDirectory())) return;
    if ((st.mode & 0o077) !== 0 && (uid === null || st.uid === uid)) {
      if (await chmod(entry, st.mode & 0o700).then(() => true, () => false)) changed++;
    }
    if (!st.isDirectory()) return;
    for (const name of await readdir(entry).catch(() => [] as string[])) await visit(path.join(entry, name));
  };
  await visit(root);
  return changed;
}
