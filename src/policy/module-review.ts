/**
 * What a Rego module reaches, read from its tokens before it is uploaded: the packages it defines,
 * the documents of `data` it reads, and the built-ins that reach out of the engine or read its
 * environment. Over-reading is on purpose: a construct the engine would refuse anyway, or one that
 * cannot be told apart, counts against the module.
 */
import { followsDot, referenceAt, regoTokens, type Segment, type Token } from './rego-tokens.ts';

/**
 * Built-ins only a superuser's policy may call: http.send and net.lookup_ip_addr reach the network
 * from the engine's host, opa.runtime reads the engine's environment variables and configuration.
 * The merely non-deterministic ones (time.now_ns, rand.intn, uuid.rfc4122, the io.jwt family) stay
 * allowed: they neither reach out nor read the engine's environment.
 */
export const RESTRICTED_BUILTINS = ['http.send', 'net.lookup_ip_addr', 'opa.runtime'] as const;

export interface ModuleReview {
  /** Each package statement's path; null when it could not be read as written names. */
  packages: (Segment[] | null)[];
  /** Each reference to `data`: its written segments, a null where a computed one begins. */
  dataReferences: Segment[][];
  /** Restricted built-ins named (a computed reference that could lead to one counts as its prefix). */
  restrictedBuiltins: string[];
}

const isBlank = (token: Token | undefined) => token?.kind === 'space' || token?.kind === 'comment';
const RESTRICTED_HEADS = new Set(RESTRICTED_BUILTINS.map((name) => name.split('.')[0]));

/** The restricted built-in a reference names or may lead to, if any. */
function restrictedBy(segments: Segment[]): string | null {
  const computed = segments.indexOf(null);
  const written = (computed < 0 ? segments : segments.slice(0, computed)) as string[];
  const name = written.join('.');
  for (const builtin of RESTRICTED_BUILTINS) {
    if (name === builtin || name.startsWith(`${builtin}.`)) return builtin;
    if (computed >= 0 && builtin.startsWith(`${name}.`)) return `${name}[…]`;
  }
  return null;
}

export function reviewModule(source: string): ModuleReview {
  const tokens = regoTokens(source);
  const review: ModuleReview = { packages: [], dataReferences: [], restrictedBuiltins: [] };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind !== 'ident' || followsDot(tokens, i)) continue;
    if (token.text === 'package') {
      let start = i + 1;
      while (isBlank(tokens[start])) start++;
      const name = tokens[start];
      if (name?.kind !== 'ident') {
        review.packages.push(null);
        continue;
      }
      const { segments, end } = referenceAt(tokens, start);
      review.packages.push(segments.includes(null) ? null : segments);
      i = end - 1;
    } else if (token.text === 'data') {
      review.dataReferences.push(referenceAt(tokens, i).segments);
    } else if (RESTRICTED_HEADS.has(token.text)) {
      const builtin = restrictedBy(referenceAt(tokens, i).segments);
      if (builtin && !review.restrictedBuiltins.includes(builtin)) review.restrictedBuiltins.push(builtin);
    }
  }
  return review;
}

/** A path as Rego writes it: names dotted, anything else in brackets. */
export function writtenPath(segments: Segment[]): string {
  return segments
    .map((segment, i) => (segment === null ? '[…]' : /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment) ? `${i ? '.' : ''}${segment}` : `[${JSON.stringify(segment)}]`))
    .join('');
}
