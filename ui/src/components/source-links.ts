/**
 * Where a finding's file:line is shown on the repository's own site, when the project's
 * scm_url is a web-hosted repository (https). Each host writes its file pages its own way:
 *   GitHub and the rest:  <repo>/blob/<rev>/<path>#L<line>
 *   GitLab:               <repo>/-/blob/<rev>/<path>#L<line>
 *   Bitbucket:            <repo>/src/<rev>/<path>#lines-<line>
 *   Gitea, Forgejo:       <repo>/src/commit/<rev>/<path>#L<line>
 */
type Host = 'github' | 'gitlab' | 'bitbucket' | 'gitea';

function hostKind(hostname: string): Host {
  if (/(^|\.)gitlab\.|^gitlab\b/.test(hostname)) return 'gitlab';
  if (/(^|\.)bitbucket\.|^bitbucket\b/.test(hostname)) return 'bitbucket';
  if (/(^|\.)(gitea|forgejo)\.|^(gitea|forgejo)\b|(^|\.)codeberg\.org$/.test(hostname)) return 'gitea';
  return 'github';
}

/** The repository's web address: https only, without credentials, query or `.git`; null for anything else (ssh, file, local paths). */
export function repositoryPage(scmUrl: unknown): { base: string; host: Host } | null {
  if (typeof scmUrl !== 'string' || !scmUrl) return null;
  let url: URL;
  try {
    url = new URL(scmUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || !url.hostname) return null;
  const path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  // owner/repository at least
  if (path.split('/').filter(Boolean).length < 2) return null;
  return { base: `https://${url.host}${path}`, host: hostKind(url.hostname) };
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** The file at the revision scanned, at its line; null when the repository has no web page or the revision is unknown. */
export function sourceFileLink(scmUrl: unknown, revision: unknown, filePath: string, line: number | null): string | null {
  const repo = repositoryPage(scmUrl);
  if (!repo || typeof revision !== 'string' || !/^[0-9a-zA-Z._/-]+$/.test(revision) || !filePath) return null;
  const rev = encodePath(revision);
  const file = encodePath(filePath.replace(/^\.?\//, ''));
  switch (repo.host) {
    case 'gitlab':
      return `${repo.base}/-/blob/${rev}/${file}${line ? `#L${line}` : ''}`;
    case 'bitbucket':
      return `${repo.base}/src/${rev}/${file}${line ? `#lines-${line}` : ''}`;
    case 'gitea':
      return `${repo.base}/src/commit/${rev}/${file}${line ? `#L${line}` : ''}`;
    default:
      return `${repo.base}/blob/${rev}/${file}${line ? `#L${line}` : ''}`;
  }
}

/** A tool's rule page, only when it is a web address (the text came from the tool's report). */
export const ruleLink = (url: unknown): string | null => (typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null);
