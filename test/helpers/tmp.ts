import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

let isolated = false;

/**
 * Gives this test process its own temporary directory (TMPDIR, which os.tmpdir() and the programs
 * runs start both read), so tests looking for files a run left behind see only their own, then
 * removes it when the process ends.
 */
export function isolateTemporaryFiles(): void {
  if (isolated) return;
  isolated = true;
  const dir = mkdtempSync(path.join(tmpdir(), 'drover-test-'));
  process.env.TMPDIR = dir;
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}
