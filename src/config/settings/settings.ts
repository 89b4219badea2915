import type { RequestContext } from '../../api/context.ts';
import type { AuditClient } from '../../audit/client.ts';
import type { SettingName, SettingValues } from './categories/index.ts';
import type { SettingDefinition, SettingRegistry } from './registry.ts';

export type SettingSource = 'database' | 'file' | 'default';

/**
 * The effective settings: a value stored in the database, else the settings file's, else the
 * declared default. Reads are synchronous from an in-memory copy, refreshed after every write
 * through this process and, in the background, at most every few seconds otherwise (another
 * node may have written).
 */
export interface Settings {
  /** The categories and settings this service knows (the composition root's SETTING_CATEGORIES). */
  readonly registry: SettingRegistry;
  get<K extends SettingName>(key: K): SettingValues[K];
  get<T = unknown>(key: string): T;
  /** Which layer the effective value comes from. */
  source(key: string): SettingSource;
  /** Whether SVC_SETTINGS_FILE sets the setting (a database value may still override it). */
  definedInFile(key: string): boolean;
  /**
   * The effective values as the API shows them: secrets read as $encrypted$. `onlyChanged` keeps
   * the settings whose value differs from their declared default (the "changed" category).
   */
  display(scope: readonly SettingDefinition[], onlyChanged?: boolean): Record<string, unknown>;
  /**
   * Validates `body` against the settings in `scope`, then stores it with an activity stream
   * record in one transaction; nothing is stored when any key is unknown or any value invalid.
   * `replace` also resets every (non-secret) setting of the scope that the body leaves out.
   */
  update(ctx: RequestContext, scope: readonly SettingDefinition[], body: unknown, mode: 'update' | 'replace', client?: AuditClient): Promise<void>;
  /** Removes the database values of the settings in `scope`, so the file or default applies again. */
  reset(ctx: RequestContext, scope: readonly SettingDefinition[], client?: AuditClient): Promise<void>;
  /** Reloads the database values now. */
  refresh(): Promise<void>;
}
