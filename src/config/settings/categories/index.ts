// The built-in setting categories, in the order GET /api/v2/settings/ lists them.
import type { ValuesOf } from '../types.ts';
import { authentication } from './authentication.ts';
import { jobs } from './jobs.ts';
import { logging } from './logging.ts';
import { security } from './security.ts';
import { system } from './system.ts';

export const BUILTIN_CATEGORIES = [system, jobs, authentication, logging, security];

/** The type of every built-in setting, so `settings.get('MAX_FORKS')` is a number. */
export type SettingValues = ValuesOf<typeof system> &
  ValuesOf<typeof jobs> &
  ValuesOf<typeof authentication> &
  ValuesOf<typeof logging> &
  ValuesOf<typeof security>;

export type SettingName = keyof SettingValues & string;
