// The type of every built-in setting; the composition root (src/composition/settings.ts) lists the categories.
import type { ValuesOf } from '../types.ts';
import type { authentication } from './authentication.ts';
import type { bulk } from './bulk.ts';
import type { debug } from './debug.ts';
import type { jobs } from './jobs.ts';
import type { logging } from './logging.ts';
import type { namedUrl } from './named-url.ts';
import type { otel } from './otel.ts';
import type { oidcCategory } from './oidc.ts';
import type { radiusCategory } from './radius.ts';
import type { saml } from './saml.ts';
import type { security } from './security.ts';
import type { azureadCategory, githubCategory, googleCategory } from './social.ts';
import type { system } from './system.ts';
import type { ui } from './ui.ts';

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
  ValuesOf<typeof otel> &
  ValuesOf<typeof saml> &
  ValuesOf<typeof oidcCategory> &
  ValuesOf<typeof githubCategory> &
  ValuesOf<typeof googleCategory> &
  ValuesOf<typeof azureadCategory> &
  ValuesOf<typeof radiusCategory>;

export type SettingName = keyof SettingValues & string;
