/** Checks a git URL the way AWX's update_scm_url does, answering a message for what is wrong. */
export function scmUrlProblem(url: string): string | null {
  const trimmed = url.trim();
  if (!trimmed) return 'URL is required for a source control project.';
  if (/\s/.test(trimmed)) return 'Invalid URL: it may not contain spaces.';
  // scp-like syntax: user@host:path
  if (/^[\w.-]+@[\w.-]+:(?!\/\/)/.test(trimmed)) return null;
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    // A plain path is a local repository.
    return trimmed.startsWith('/') ? null : 'Invalid URL: use http(s)://, ssh://, git://, file:// or user@host:path.';
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  if (!['http', 'https', 'ssh', 'git', 'file', 'git+ssh'].includes(scheme)) return `Unsupported URL scheme "${scheme}" for git.`;
  if (parsed.password) return 'Password not allowed in the URL: use a Source Control credential.';
  if (scheme === 'git' && parsed.username) return 'Username not allowed for git:// URLs.';
  return null;
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
