// An archive project's source: its URL downloaded through the outbound guard (as AWX's project
// update does with get_url and the project's Source Control credential, sent as Basic), its
// revision the SHA-1 of the file, as AWX records it (docs/projects.md#archive-projects).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { outboundPolicy, OutboundFailed, OutboundRefused, sendOutbound } from '../net/outbound.ts';
import type { ScmInputs } from './git-auth.ts';
import { unpackArchive, UnpackRefused } from './archive-unpack.ts';
import { archiveCopyPath } from './paths.ts';

/** What a download and an unpack read of the service. */
export interface ArchiveServices {
  settings: { get<T = unknown>(key: string): T };
}

const DOWNLOAD_TIMEOUT_MS = 300_000;
const MAX_ENTRIES = 100_000;

export type Downloaded = { bytes: Buffer; revision: string } | { problem: string };

/** Downloads the project's archive; answers its bytes and SHA-1, or why it could not. */
export async function downloadArchive(services: ArchiveServices, url: string, inputs: ScmInputs | null, signal?: AbortSignal): Promise<Downloaded> {
  const maxBytes = services.settings.get<number>('PROJECT_ARCHIVE_MAX_BYTES');
  const headers: Record<string, string> = {};
  if (inputs?.username) headers.authorization = `Basic ${Buffer.from(`${inputs.username}:${inputs.password ?? ''}`).toString('base64')}`;
  try {
    const res = await sendOutbound(
      { url, headers, binary: true, maxResponseBytes: maxBytes, timeoutMs: DOWNLOAD_TIMEOUT_MS, signal },
      outboundPolicy(services.settings as { get(key: 'OUTBOUND_URL_ALLOWLIST'): string[] }),
    );
    if (res.status !== 200) return { problem: `The archive could not be downloaded: ${url} answered HTTP ${res.status}.` };
    const bytes = res.bytes ?? Buffer.alloc(0);
    return { bytes, revision: createHash('sha1').update(bytes).digest('hex') };
  } catch (err) {
    if (err instanceof OutboundRefused || err instanceof OutboundFailed) return { problem: `The archive could not be downloaded: ${err.message}` };
    throw err;
  }
}

/** The archive this node's last update of the project kept, when it is at `revision`; null otherwise. */
export async function keptArchive(projectsRoot: string, localPath: string, revision: string): Promise<Buffer | null> {
  const bytes = await readFile(archiveCopyPath(projectsRoot, localPath)).catch(() => null);
  return bytes && createHash('sha1').update(bytes).digest('hex') === revision ? bytes : null;
}

/** Unpacks a downloaded archive into `dest` (a new, empty directory); answers how many files it wrote, or why it refused. */
export async function unpackProjectArchive(services: ArchiveServices, bytes: Buffer, dest: string): Promise<{ files: number } | { problem: string }> {
  try {
    const files = await unpackArchive(bytes, dest, { maxBytes: services.settings.get<number>('PROJECT_ARCHIVE_MAX_UNPACKED_BYTES'), maxEntries: MAX_ENTRIES });
    return { files };
  } catch (err) {
    if (err instanceof UnpackRefused) return { problem: err.message };
    throw err;
  }
}
