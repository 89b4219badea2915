import { textOn } from '../../app/branding';
import { isColor, type Branding } from './tenant-types';
import './tenants.css';

function sameOrigin(address: string): boolean {
  try {
    return new URL(address, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

/**
 * The tenant's masthead and a primary button as its console shows them. A logo of another site is
 * not loaded here (this page may load images of its own site only): the tenant's console allows it.
 */
export function BrandingPreview({ name, branding }: { name: string; branding: Branding }) {
  const masthead = isColor(branding.secondary_color) ? branding.secondary_color : undefined;
  const primary = isColor(branding.primary_color) ? branding.primary_color : undefined;
  const logo = branding.logo_url.trim();
  const ownSite = !!logo && sameOrigin(logo);
  return (
    <figure className="drover-branding-preview" aria-label="Branding preview">
      <div className="drover-branding-preview-masthead" data-testid="preview-masthead" style={masthead ? { backgroundColor: masthead, color: textOn(masthead) } : undefined}>
        {ownSite && <img className="drover-brand-logo" src={logo} alt="" />}
        {logo && !ownSite && <span className="drover-branding-preview-logo" title={logo}>Logo</span>}
        <strong>{name || 'Tenant name'}</strong>
      </div>
      <div className="drover-branding-preview-body">
        <span className="drover-branding-preview-button" data-testid="preview-button" style={primary ? { backgroundColor: primary, color: textOn(primary) } : undefined}>
          Launch
        </span>
        <span className="drover-branding-preview-link" style={primary ? { color: primary } : undefined}>A link</span>
      </div>
      <figcaption>
        {logo && !ownSite ? `The logo (${logo}) is loaded on the tenant's own domain only. ` : ''}
        {branding.custom_domain ? `Shown at ${branding.custom_domain}.` : 'Shown once the tenant has a custom domain.'}
      </figcaption>
    </figure>
  );
}
