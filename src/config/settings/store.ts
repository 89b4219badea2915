import { HIDDEN, recordActivity } from '../../activity/record.ts';
import { recordAudit, type AuditEvent } from '../../audit/record.ts';
import { actorId, type RequestContext } from '../../api/context.ts';
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import { ENCRYPTED, FieldProblem } from '../../api/fields.ts';
import type { Database, Queryable } from '../../db/database.ts';
import { ConfigError, type EnvConfig } from '../env.ts';
import type { SettingName, SettingValues } from './categories/index.ts';
import { readSettingsFile } from './file.ts';
import { isAlias, parseSetting, type SettingDefinition, type SettingRegistry } from './registry.ts';
import { decryptSetting, encryptSetting } from './secret-value.ts';
import { deepFreeze, defaultOf, type Category, type SettingFacts, type SettingLookup } from './types.ts';
import type { Settings, SettingSource } from './settings.ts';

export type { Settings, SettingSource } from './settings.ts';

/** How stale the in-memory copy may get before a read starts a background reload. */
export const REFRESH_INTERVAL_MS = 5_000;
// Serializes settings writes across nodes so cross-setting checks see every committed write.
const WRITE_LOCK_KEY = 7_341_110;

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

class SettingsStore implements Settings {
  private stored = new Map<string, unknown>();
  private loadedAt = 0;
  private generation = 0;
  private pending: Promise<void> | null = null;
  private readonly warned = new Set<string>();

  constructor(
    readonly registry: SettingRegistry,
    private readonly db: Database,
    private readonly secretKey: string,
    private readonly file: ReadonlyMap<string, unknown>,
    private readonly facts: SettingFacts,
  ) {}

  get<K extends SettingName>(key: K): SettingValues[K];
  get<T = unknown>(key: string): T;
  get(key: string): unknown {
    const definition = this.registry.find(key);
    if (!definition) throw new Error(`unknown setting ${key}`);
    this.refreshInBackground();
    return this.layered(this.stored, definition);
  }

  source(key: string): SettingSource {
    const name = this.registry.find(key)?.canonical ?? key;
    if (this.stored.has(name)) return 'database';
    return this.file.has(name) ? 'file' : 'default';
  }

  definedInFile(key: string): boolean {
    return this.file.has(this.registry.find(key)?.canonical ?? key);
  }

  display(scope: readonly SettingDefinition[], onlyChanged = false): Record<string, unknown> {
    this.refreshInBackground();
    const shown = onlyChanged ? scope.filter((d) => !d.field.compute && !sameValue(this.layered(this.stored, d), defaultOf(d.field))) : scope;
    return Object.fromEntries(shown.map((d) => [d.name, d.field.serialize(this.layered(this.stored, d))]));
  }

  /** Writes the settings of `input`, a request's body the route checked to be an object. */
  async update(ctx: RequestContext, scope: readonly SettingDefinition[], input: Record<string, unknown>, mode: 'update' | 'replace', client?: AuditEvent['client']): Promise<void> {
    const inScope = new Map(scope.map((d) => [d.name, d]));
    // By stored name; a setting given under both its names must get one value.
    const values = new Map<string, unknown>();
    const givenAs = new Map<string, string>();
    const errors: FieldErrors = {};
    for (const [name, raw] of Object.entries(input)) {
      const definition = inScope.get(name);
      if (!definition) {
        const elsewhere = this.registry.find(name);
        errors[name] = [elsewhere ? `Not a setting of this category; it belongs to "${elsewhere.category.slug}".` : 'Unknown setting.'];
        continue;
      }
      if (definition.field.readOnly) {
        errors[name] = ['This setting is read-only.'];
        continue;
      }
      // A secret sent back as read keeps the stored value.
      if (definition.field.secret && raw === ENCRYPTED) continue;
      let value: unknown;
      try {
        value = parseSetting(definition.field, raw);
      } catch (err) {
        if (!(err instanceof FieldProblem)) throw err;
        errors[name] = [err.message];
        continue;
      }
      const other = givenAs.get(definition.canonical);
      if (other !== undefined && !sameValue(values.get(definition.canonical), value)) {
        errors[name] = [`${name} and ${other} are the same setting; give it one value.`];
        continue;
      }
      givenAs.set(definition.canonical, name);
      values.set(definition.canonical, value);
    }
    if (Object.keys(errors).length) throw new ValidationError(errors);
    const given = new Set(Object.keys(input).map((name) => inScope.get(name)!.canonical));
    const resets = mode === 'replace' ? writable(scope).filter((d) => !given.has(d.name) && !d.field.secret).map((d) => d.name) : [];
    await this.write(ctx, values, resets, client);
  }

  reset(ctx: RequestContext, scope: readonly SettingDefinition[], client?: AuditEvent['client']): Promise<void> {
    return this.write(ctx, new Map(), writable(scope).map((d) => d.name), client);
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const rows = await this.db.query<{ key: string; value: unknown }>('SELECT key, value FROM settings');
    // A reload started later (after a write) has the newer data: keep that one.
    if (generation !== this.generation) return;
    this.stored = this.decode(rows);
    this.loadedAt = Date.now();
  }

  private refreshInBackground(): void {
    if (this.pending || Date.now() - this.loadedAt < REFRESH_INTERVAL_MS) return;
    this.loadedAt = Date.now();
    this.pending = this.refresh()
      .catch((err: Error) => this.warn(`cannot reload settings: ${err.message}`))
      .finally(() => {
        this.pending = null;
      });
  }

  private layered(stored: ReadonlyMap<string, unknown>, definition: SettingDefinition): unknown {
    const { canonical: name, field } = definition;
    if (field.compute) return field.compute(this.facts, (other) => this.layered(stored, this.registry.find(other)!));
    if (stored.has(name)) return stored.get(name);
    return this.file.has(name) ? this.file.get(name) : defaultOf(field);
  }

  /** Database rows as setting values; rows of unknown settings or with invalid values are skipped (with a warning). */
  private decode(rows: { key: string; value: unknown }[]): Map<string, unknown> {
    const stored = new Map<string, unknown>();
    for (const { key, value } of rows) {
      const definition = this.registry.find(key);
      if (!definition || isAlias(definition) || definition.field.compute) continue;
      try {
        const clear = definition.field.secret ? decryptSetting(this.secretKey, key, value) : value;
        stored.set(key, deepFreeze(parseSetting(definition.field, clear)));
      } catch (err) {
        this.warn(`ignoring the stored value of setting ${key}: ${(err as Error).message}`);
      }
    }
    return stored;
  }

  private warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    console.warn(`drover: ${message}`);
  }

  private encode(definition: SettingDefinition, value: unknown): string {
    return JSON.stringify(definition.field.secret ? encryptSetting(this.secretKey, definition.name, value) : value);
  }

  private async write(ctx: RequestContext, values: ReadonlyMap<string, unknown>, resets: readonly string[], client?: AuditEvent['client']): Promise<void> {
    const touched = [...new Set([...values.keys(), ...resets])];
    if (!touched.length) return;
    const definitions = touched.map((name) => this.registry.find(name)!);
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK_KEY]);
      const before = this.decode(await tx.query<{ key: string; value: unknown }>('SELECT key, value FROM settings'));
      const after = new Map(before);
      for (const name of resets) after.delete(name);
      for (const [name, value] of values) after.set(name, value);

      const categories = new Set(definitions.map((d) => d.category));
      await checkCategories(categories, (name) => this.layered(after, this.registry.find(name)!), tx);

      for (const [name, value] of values) {
        await tx.query(
          `INSERT INTO settings (key, value, modified, modified_by_id) VALUES ($1, $2::jsonb, now(), $3)
           ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, modified = now(), modified_by_id = EXCLUDED.modified_by_id`,
          [name, this.encode(this.registry.find(name)!, value), actorId(ctx)],
        );
      }
      if (resets.length) await tx.query('DELETE FROM settings WHERE key = ANY($1)', [resets]);

      const changes: Record<string, unknown> = {};
      for (const definition of definitions) {
        const old = this.layered(before, definition);
        const now = this.layered(after, definition);
        if (sameValue(old, now)) continue;
        changes[definition.name] = definition.field.secret ? [HIDDEN, HIDDEN] : [old, now];
      }
      if (Object.keys(changes).length) {
        await recordActivity(tx, ctx, { operation: 'update', object1: 'setting', object1Id: 0, changes });
        // The audit event names every changed setting; values only of those that are not secret.
        const names = Object.keys(changes);
        const categories = [...new Set(names.map((name) => this.registry.find(name)!.category.slug))];
        const values = Object.fromEntries(names.filter((name) => !this.registry.find(name)!.field.secret).map((name) => [name, changes[name]]));
        await recordAudit(tx, {
          type: 'setting.changed',
          ctx,
          target: { type: 'setting', name: categories.join(',') },
          client,
          detail: { settings: names, categories, changes: values },
        });
      }
    });
    // The write is committed; should the reload fail, the next read retries it.
    await this.refresh().catch((err: Error) => {
      this.loadedAt = 0;
      this.warn(`cannot reload settings: ${err.message}`);
    });
  }
}

/** The settings of a scope that are stored and may be written: neither aliases nor read-only. */
const writable = (scope: readonly SettingDefinition[]) => scope.filter((d) => !isAlias(d) && !d.field.readOnly);

/** Runs the cross-setting rules of each category; throws ValidationError with every problem. */
async function checkCategories(categories: Iterable<Category>, value: SettingLookup, db: Queryable): Promise<void> {
  const errors: FieldErrors = {};
  for (const category of categories) {
    const problems = await category.validate?.(value, db);
    for (const [name, messages] of Object.entries(problems ?? {})) (errors[name] ??= []).push(...messages);
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}

/**
 * Loads the settings: the file named by SVC_SETTINGS_FILE (validated here: a bad file stops the
 * service with a ConfigError naming the file and key), then the database values. `resources`: those
 * of the service's composition, which computed settings describe (named URLs).
 */
export async function loadSettings(db: Database, env: EnvConfig, registry: SettingRegistry, resources: SettingFacts['resources'] = []): Promise<Settings> {
  let file = new Map<string, unknown>();
  if (env.settingsFile) {
    file = await readSettingsFile(env.settingsFile, registry);
    const lookup: SettingLookup = (name) => {
      const definition = registry.find(name)!;
      return file.has(name) ? file.get(name) : defaultOf(definition.field);
    };
    const touched = new Set([...file.keys()].map((name) => registry.find(name)!.category));
    try {
      await checkCategories(touched, lookup, db);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const problems = Object.entries(err.errors).map(([name, messages]) => `${name}: ${messages.join(' ')}`);
      throw new ConfigError(`settings file ${env.settingsFile}: ${problems.join('; ')}`);
    }
    for (const value of file.values()) deepFreeze(value);
  }
  const [installation] = await db.query<{ uuid: string }>('SELECT uuid FROM installation');
  const store = new SettingsStore(registry, db, env.secretKey, file, { installUuid: installation?.uuid ?? '', resources });
  await store.refresh();
  return store;
}
