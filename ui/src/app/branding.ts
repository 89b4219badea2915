/**
 * A tenant's branding, when the console is served on its custom domain: the server writes it into
 * index.html as a JSON data block (never a request after load, docs/console.md#branding-on-a-tenants-domain), and it is
 * applied here before the first render. Values are checked again: colours only as #RRGGBB.
 */
export interface PageBranding {
  name: string;
  logo_url: string;
  primary_color: string;
  secondary_color: string;
  contact_email: string;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;
let current: PageBranding | undefined;

/** The branding the page was served with, if any. */
export const pageBranding = (): PageBranding | undefined => current;

const text = (value: unknown) => (typeof value === 'string' ? value : '');

function read(): PageBranding | undefined {
  const element = document.getElementById('drover-branding');
  if (!element?.textContent) return undefined;
  try {
    const data = JSON.parse(element.textContent) as Record<string, unknown>;
    const color = (value: unknown) => (COLOR.test(text(value)) ? text(value) : '');
    return { name: text(data.name), logo_url: text(data.logo_url), primary_color: color(data.primary_color), secondary_color: color(data.secondary_color), contact_email: text(data.contact_email) };
  } catch {
    return undefined;
  }
}

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
export function textOn(hex: string): '#000000' | '#ffffff' {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return luminance > 0.179 ? '#000000' : '#ffffff';
}

/** Sets the page's brand colours (PatternFly's brand tokens, the masthead's background) and its title. */
export function applyBranding(): void {
  current = read();
  if (!current) return;
  const root = document.documentElement.style;
  if (current.primary_color) {
    for (const token of ['default', 'hover', 'clicked']) root.setProperty(`--pf-t--global--color--brand--${token}`, current.primary_color);
    root.setProperty('--drover-brand-primary', current.primary_color);
  }
  if (current.secondary_color) {
    root.setProperty('--drover-brand-secondary', current.secondary_color);
    root.setProperty('--drover-brand-on-secondary', textOn(current.secondary_color));
    document.documentElement.classList.add('drover-branded-masthead');
  }
  if (current.name) document.title = current.name;
}
