/** The setting categories of the service, in the order GET /api/v2/settings/ lists them. */
import { authentication } from '../config/settings/categories/authentication.ts';
import { bulk } from '../config/settings/categories/bulk.ts';
import { debug } from '../config/settings/categories/debug.ts';
import { jobs } from '../config/settings/categories/jobs.ts';
import { ldapCategories } from '../config/settings/categories/ldap.ts';
import { logging } from '../config/settings/categories/logging.ts';
import { namedUrl } from '../config/settings/categories/named-url.ts';
import { otel } from '../config/settings/categories/otel.ts';
import { oidcCategory } from '../config/settings/categories/oidc.ts';
import { radiusCategory } from '../config/settings/categories/radius.ts';
import { saml } from '../config/settings/categories/saml.ts';
import { security } from '../config/settings/categories/security.ts';
import { azureadCategory, githubCategory, googleCategory } from '../config/settings/categories/social.ts';
import { system } from '../config/settings/categories/system.ts';
import { ui } from '../config/settings/categories/ui.ts';
import { SettingRegistry } from '../config/settings/registry.ts';
import type { Category } from '../config/settings/types.ts';

/** The built-in categories, then each sign-in integration's (LDAP, SAML, OIDC, social, RADIUS). */
export const SETTING_CATEGORIES: readonly Category[] = [
  system, jobs, authentication, ...ldapCategories, saml, logging, security, ui, namedUrl, debug, bulk, otel,
  oidcCategory, githubCategory, googleCategory, azureadCategory, radiusCategory,
];

/** The registry the settings of one service are loaded with: SETTING_CATEGORIES, then what a test adds as if it were listed there. */
export const settingRegistry = (extra: readonly Category[] = []): SettingRegistry => new SettingRegistry([...SETTING_CATEGORIES, ...extra]);
