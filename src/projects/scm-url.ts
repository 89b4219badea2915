import path from 'node:path';

// <transport>::<address> makes git run git-remote-<transport>: ext:: runs any command, fd:: reads descriptors.
const REMOTE_HELPER = /^[A-Za-z0-9+.-]*::/;
const SCP_LIKE = /^([\w.-]+)@([\w.-]+):(?!\/\/)(.*)$/;
const SCHEMES = ['http', 'https', 'ssh', 'git', 'file', 'git+ssh', 'ssh+git'];

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * Checks a git URL the way AWX's update_scm_url does, answering a message for what is wrong; also
 * refuses whatever git would take for an option or a remote helper rather than a repository.
 */
export function scmUrlProblem(url: string): string | null {
  const trimmed = url.trim();
  if (!trimmed) return 'URL is required for a source control project.';
  if (trimmed.startsWith('-')) return 'Invalid URL: it may not begin with "-" (git would read it as an option).';
  if (REMOTE_HELPER.test(trimmed)) return 'Invalid URL: the <transport>::<address> form runs a git remote helper and is not allowed.';
  if (/[\s\x00-\x1f\x7f]/.test(trimmed)) return 'Invalid URL: it may not contain spaces or control characters.';
  const scp = SCP_LIKE.exec(trimmed);
  if (scp) {
    return scp.slice(1).some((part) => part.startsWith('-')) ? 'Invalid URL: no part of user@host:path may begin with "-".' : null;
  }
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    // A plain path is a local repository.
    return trimmed.startsWith('/') ? null : 'Invalid URL: use http(s)://, ssh://, git://, file:// or user@host:path.';
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  if (!SCHEMES.includes(scheme)) return `Unsupported URL scheme "${scheme}" for git.`;
  if (parsed.password) return 'Password not allowed in the URL: use a Source Control credential.';
  if (scheme === 'git' && parsed.username) return 'Username not allowed for git:// URLs.';
  if (parsed.hostname.startsWith('-') || decoded(parsed.username).startsWith('-')) return 'Invalid URL: the host and user may not begin with "-".';
  if (scheme === 'file' && (!['', 'localhost'].includes(parsed.hostname) || parsed.search || parsed.hash)) {
    return 'Invalid URL: a file:// URL names a path on the service host (file:///path), without a query or fragment.';
  }
  return null;
}

/**
 * The absolute path a local repository URL (file:// or a plain path) names, normalized; null for
 * a remote URL. Call only for a URL scmUrlProblem accepts.
 */
export function localRepositoryPath(url: string): string | null {
  const trimmed = url.trim();
  if (trimmed.startsWith('/')) return path.resolve(trimmed);
  if (!/^file:/i.test(trimmed)) return null;
  try {
    return path.resolve(decoded(new URL(trimmed).pathname));
  } catch {
    return null;
  }
}

/** The URL with any user name taken out (it comes from the credential). */
export function withoutUser(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username) return url;
    parsed.username = '';
    return parsed.toString();
  } catch {
    return url;
  }
}
