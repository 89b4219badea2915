// Branch names and refspecs reach git's command line: whatever git could read as an option, or as
// anything but a ref name, is refused before it is stored or run.

const CONTROL = /[\x00-\x20\x7f]/;

/** Whether git would refuse `name` as a ref name (git check-ref-format's rules). */
function invalidRefName(name: string, allowGlob: boolean): boolean {
  if (!name || CONTROL.test(name) || /[~^:?[\\]/.test(name)) return true;
  if (!allowGlob && name.includes('*')) return true;
  if (allowGlob && name.split('*').length > 2) return true;
  if (name.includes('..') || name.includes('@{') || name === '@' || name.includes('//')) return true;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return true;
  return name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
}

/** Why a branch, tag or commit name (scm_branch) cannot be used, or null. Empty means the default branch. */
export function branchProblem(name: string): string | null {
  if (!name) return null;
  if (name.startsWith('-')) return 'A branch, tag or commit may not begin with "-" (git would read it as an option).';
  if (invalidRefName(name, false)) return `"${name}" is not a valid branch, tag or commit name.`;
  return null;
}

/** The refspecs of an scm_refspec value: separated by spaces or commas. */
export const splitRefspecs = (value: string) => value.split(/[\s,]+/).filter(Boolean);

/**
 * Why extra refspecs (scm_refspec) cannot be used, or null: each is `[+]<source>[:<destination>]`,
 * both sides ref names with at most one `*`, neither beginning with "-".
 */
export function refspecProblem(value: string): string | null {
  for (const refspec of splitRefspecs(value)) {
    const sides = refspec.replace(/^\+/, '').split(':');
    if (sides.some((side) => side.startsWith('-'))) return 'A refspec may not begin with "-" (git would read it as an option).';
    if (sides.length > 2 || !sides[0] || (sides.length === 2 && sides[1] && invalidRefName(sides[1], true)) || invalidRefName(sides[0], true)) {
      return `"${refspec}" is not a valid refspec: use [+]<source>[:<destination>], e.g. refs/pull/*:refs/remotes/origin/pull/*.`;
    }
  }
  return null;
}

/** What a branch, tag or commit name may stand for in a checkout, in the order tried. */
export const revisionCandidates = (name: string) => [`refs/remotes/origin/${name}`, `refs/tags/${name}`, name];

/** `git rev-parse` arguments answering the commit a revision names (nothing when there is none), never read as an option. */
export const commitOf = (revision: string) => ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`];
