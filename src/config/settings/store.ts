import type { Database } from '../../db/database.ts';
import type { EnvConfig } from '../env.ts';

// Minimal version; the settings module replaces it with categories, validation and layering.
export interface Settings {
  /** The effective value of a setting: database, else settings file, else default. */
  get<T = unknown>(key: string): T;
}

const DEFAULTS: Record<string, unknown> = { AUTH_BASIC_ENABLED: true };

export async function loadSettings(_db: Database, _env: EnvConfig): Promise<Settings> {
  return { get: <T>(key: string) => DEFAULTS[key] as T };
}
