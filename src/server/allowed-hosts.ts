/** Django-style ALLOWED_HOSTS: "*" any, ".example.com" the domain and its subdomains, else an exact name. */
export function hostAllowed(hostHeader: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return true;
  if (!hostHeader) return false;
  const host = stripPort(hostHeader.trim().toLowerCase()).replace(/\.$/, '');
  return allowed.some((pattern) => {
    const p = pattern.toLowerCase();
    if (p.startsWith('.')) return host === p.slice(1) || host.endsWith(p);
    return host === p;
  });
}

function stripPort(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon >= 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}
