// The built-in setting categories, in the order GET /api/v2/settings/ lists them.
import type { ValuesOf } from '../types.ts';
import { authentication } from './authentication.ts';
import { bulk } from './bulk.ts';
import { debug } from './debug.ts';
import { jobs } from './jobs.ts';
import { ldapCategories } from './ldap.ts';
import { logging } from './logging.ts';
import { namedUrl } from './named-url.ts';
import { oidcCategory } from './oidc.ts';
import { radiusCategory } from './radius.ts';
import { saml } from './saml.ts';
import { security } from './security.ts';
import { azureadCategory, githubCategory, googleCategory } from './social.ts';
import { system } from './system.ts';
import { ui } from './ui.ts';

export const BUILTIN_CATEGORIES = [
  system, jobs, authentication, ...ldapCategories, saml, logging, security, ui, namedUrl, debug, bulk,
  oidcCategory, githubCategory, googleCategory, azureadCategory, radiusCategory,
];

/** The type of every built-in setting, so `settings.get('MAX_FORKS')` is a number. */
export type SettingValues = ValuesOf<typeof system> &
  ValuesOf<typeof jobs> &
  ValuesOf<typeof authentication> &
  ValuesOf<typeof logging> &
  ValuesOf<typeof security> &
  ValuesOf<typeof ui> &
  ValuesOf<typeof namedUrl> &
  ValuesOf<typeof debug> &
  ValuesOf<typeof bulk> &
  ValuesOf<typeof saml> &
  ValuesOf<typeof oidcCategory> &
  ValuesOf<typeof githubCategory> &
  ValuesOf<typeof googleCategory> &
  ValuesOf<typeof azureadCategory> &
  ValuesOf<typeof radiusCategory>;

export type SettingName = keyof SettingValues & string;
