/**
 * A tenant's branding in the console page served on its custom domain (docs/console.md#branding-on-a-tenants-domain):
 * the title, and the colours and logo as a JSON data block the console applies before it first
 * renders. Every value is data: the title is HTML-escaped and the JSON is written so that nothing in
 * it can end its script element.
 */
import type { Database } from '../db/database.ts';
import { normalizeHost } from '../resources/tenants/tenant-values.ts';

export interface ConsoleBranding {
  tenant: number;
  organization: number;
  name: string;
  logo_url: string;
  primary_color: string;
  secondary_color: string;
  custom_domain: string;
  contact_email: string;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

/** The branding of the tenant whose custom domain is `host`, if any. */
export async function brandingForHost(db: Database, host: string | undefined): Promise<ConsoleBranding | undefined> {
  // As the branding lookup reads it (docs/tenants.md): lowercase, without port or trailing dot.
  const domain = host ? normalizeHost(host) : null;
  if (!domain) return undefined;
  const [row] = await db.query<ConsoleBranding>(
    `SELECT t.id AS tenant, o.id AS organization, o.name, t.logo_url, t.primary_color, t.secondary_color, t.custom_domain, t.contact_email
       FROM tenants t JOIN organizations o ON o.id = t.organization_id
      WHERE t.custom_domain = $1`,
    [domain],
  );
  return row;
}

/**
 * An address the page may load the logo from: an http(s) URL, or a path of this site. The
 * validation of the tenant's fields is the API's; this only keeps anything else out of the page.
 */
export function logoAddress(value: string): { url: string; origin?: string } | undefined {
  if (value.startsWith('/') && !value.startsWith('//') && !value.includes('\\')) return { url: value };
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? { url: url.href, origin: url.origin } : undefined;
  } catch {
    return undefined;
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

/** JSON that can stand inside a script element: no `<`, `>` or `&` (so no `</script>` or `<!--`), no line separators. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** What the page carries: the colours only when they are #RRGGBB, the logo only from an address it may load. */
export function pageBranding(branding: ConsoleBranding) {
  return {
    name: branding.name,
    logo_url: logoAddress(branding.logo_url)?.url ?? '',
    primary_color: COLOR.test(branding.primary_color) ? branding.primary_color : '',
    secondary_color: COLOR.test(branding.secondary_color) ? branding.secondary_color : '',
    contact_email: branding.contact_email,
  };
}

/** The console's index.html carrying the tenant's branding. */
export function brandedIndex(html: string, branding: ConsoleBranding): string {
  const data = pageBranding(branding);
  const head = [
    data.primary_color ? `<meta name="theme-color" content="${escapeHtml(data.primary_color)}" />` : '',
    `<script type="application/json" id="drover-branding">${scriptJson(data)}</script>`,
  ].join('');
  return html
    .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(branding.name)}</title>`)
    .replace('</head>', () => `${head}</head>`);
}
