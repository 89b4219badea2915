/**
 * Field declarations. One declaration drives validation of writes, serialization of reads,
 * filtering and ordering, OPTIONS metadata and the activity stream.
 */
export type OptionsType = 'string' | 'integer' | 'float' | 'boolean' | 'datetime' | 'json' | 'choice' | 'id' | 'field' | 'list_of_ids';

/**
 * What a composition tells the fields whose values depend on it (the run kinds' names in a
 * policy's applies_to, the action types of event rules), by name: the composition root makes it.
 */
export type Vocabulary = Readonly<Record<string, unknown>>;

export interface Field {
  /** Name of the column; for references the column holding the id (organization -> organization_id). */
  column: string;
  /**
   * A field known only once the service is composed: the resources of a composition hold the
   * field this answers in its place (composeResource), so two services of one process may differ.
   */
  composed?: (vocabulary: Vocabulary) => Field;
  optionsType: OptionsType;
  label: string;
  helpText: string;
  required: boolean;
  /** Value used on create when the field is omitted. */
  default?: unknown;
  readOnly: boolean;
  /** Accepted on create, refused on update. */
  writeOnce: boolean;
  /** Read back as $encrypted$, never filterable or orderable, "hidden" in the activity stream. */
  secret: boolean;
  filterable: boolean;
  nullable: boolean;
  /**
   * What null stands for in a resource's request body when the field is not nullable: "" for text
   * and choice fields, false for booleans (AWX's CharNullField, ChoiceNullField, BooleanNullField).
   * Settings keep null as null (see crud.ts readBody, the only place that applies it).
   */
  nullMeans?: unknown;
  /** [value, label] pairs; values are numbers for integer fields with choices (verbosity). */
  choices?: readonly (readonly [string | number, string])[];
  /** Name of the referenced resource, for reference fields. */
  ref?: string;
  /** Limits parse enforces, kept for the field's schema (field-schemas.ts): false when blank text is refused. */
  allowBlank?: boolean;
  maxLength?: number;
  min?: number;
  max?: number;
  /** How filter values are compared: their SQL cast and how a query-string value is read. */
  filterKind: 'text' | 'integer' | 'float' | 'boolean' | 'datetime' | 'json';
  /** Turns an incoming JSON value into the stored value, or throws FieldProblem. */
  parse(value: unknown): unknown;
  /** Turns a stored value into its JSON representation. */
  serialize(value: unknown): unknown;
  /**
   * For credentials the service makes itself (see generatedSecret): the value made on create from
   * the other values, or null for none.
   */
  generate?(values: Record<string, unknown>): string | null;
  /** What the column keeps of a generated value (a hash). */
  store?(value: string): string;
  /** More of what OPTIONS says about the field (AWX describes some fields per kind: notification configurations). */
  optionsMeta?: Record<string, unknown>;
  /**
   * The JSON Schema of the values parse takes, where the constructor's type says less or other (a
   * json field's shape, a variables text that may also be an object, a scope of several words): it
   * replaces the type the field's body schema takes from optionsType (field-schemas.ts), and must
   * accept everything parse accepts; parse still checks the rest.
   */
  valueSchema?: Record<string, unknown>;
}

export class FieldProblem extends Error {}

export interface FieldOptions {
  label?: string;
  helpText?: string;
  required?: boolean;
  default?: unknown;
  readOnly?: boolean;
  writeOnce?: boolean;
  nullable?: boolean;
  filterable?: boolean;
  column?: string;
}

type Base = Omit<Field, 'parse' | 'serialize' | 'optionsType' | 'filterKind' | 'column' | 'label'> & { column: string; label: string };

function base(opts: FieldOptions): Base {
  return {
    column: opts.column ?? '',
    label: opts.label ?? '',
    helpText: opts.helpText ?? '',
    required: opts.required ?? false,
    default: opts.default,
    readOnly: opts.readOnly ?? false,
    writeOnce: opts.writeOnce ?? false,
    secret: false,
    filterable: opts.filterable ?? true,
    nullable: opts.nullable ?? false,
  };
}

const identity = (v: unknown) => v;

function nullOr(field: { nullable: boolean }, value: unknown, parse: (v: unknown) => unknown): unknown {
  if (value === null) {
    if (field.nullable) return null;
    throw new FieldProblem('This field may not be null.');
  }
  return parse(value);
}

export interface TextOptions extends FieldOptions {
  maxLength?: number;
  /** Refuse the empty string (AWX's allow_blank=False). */
  allowBlank?: boolean;
  pattern?: RegExp;
  patternMessage?: string;
}

export function text(opts: TextOptions = {}): Field {
  const b = base({ default: opts.required || opts.nullable ? undefined : '', ...opts });
  const field: Field = {
    ...b,
    optionsType: 'string',
    filterKind: 'text',
    nullMeans: '',
    maxLength: opts.maxLength,
    ...(opts.allowBlank === false && { allowBlank: false }),
    parse: (value) =>
      nullOr(field, value, (v) => {
        if (typeof v !== 'string') throw new FieldProblem('Not a valid string.');
        if (opts.allowBlank === false && v.trim() === '') throw new FieldProblem('This field may not be blank.');
        if (opts.maxLength !== undefined && v.length > opts.maxLength) {
          throw new FieldProblem(`Ensure this field has no more than ${opts.maxLength} characters.`);
        }
        if (opts.pattern && v !== '' && !opts.pattern.test(v)) throw new FieldProblem(opts.patternMessage ?? 'Enter a valid value.');
        return v;
      }),
    serialize: identity,
  };
  return field;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function email(opts: FieldOptions = {}): Field {
  return text({ maxLength: 254, pattern: EMAIL, patternMessage: 'Enter a valid email address.', ...opts });
}

/** A write-only secret: stored as given by the resource's own hook (hashed or encrypted), read back as $encrypted$. */
export function secret(opts: TextOptions = {}): Field {
  const field = text(opts);
  return {
    ...field,
    secret: true,
    filterable: false,
    parse: (value) => {
      if (value === ENCRYPTED) throw new FieldProblem(`"${ENCRYPTED}" is only accepted to keep the stored value.`);
      return field.parse(value);
    },
    serialize: (value) => (value === null || value === '' ? '' : ENCRYPTED),
  };
}

export const ENCRYPTED = '$encrypted$';

export interface GeneratedSecretOptions extends Omit<FieldOptions, 'readOnly' | 'filterable' | 'default'> {
  /** Makes the value on create from the other values; null for none. */
  generate(values: Record<string, unknown>): string | null;
  /** What the column keeps: a hash, so the value itself is never stored. */
  store(value: string): string;
  /** What reads show once the object exists (AWX shows tokens as "************"). */
  censor?: string;
}

/**
 * A credential the service generates on create (an access token, a client secret): the column
 * keeps only what `store` makes of it, the create response shows the value itself once, and every
 * later read shows `censor`. Read-only, never filterable, "hidden" in the activity stream.
 */
export function generatedSecret(opts: GeneratedSecretOptions): Field {
  const censor = opts.censor ?? ENCRYPTED;
  return {
    ...base({ nullable: true, ...opts, readOnly: true, filterable: false }),
    secret: true,
    optionsType: 'string',
    filterKind: 'text',
    generate: opts.generate,
    store: opts.store,
    parse: () => {
      throw new FieldProblem('This field is read-only.');
    },
    serialize: (value) => (value === null || value === undefined ? null : censor),
  };
}

// Generated values of freshly created rows, shown in the create response only: the row objects
// are the ones createObject answers, and are garbage once the response is sent.
const revealed = new WeakMap<object, Record<string, string>>();

/**
 * Makes the values of the resource's generated fields: puts what is stored into `values` and
 * answers the values themselves by field name.
 */
export function generateSecrets(fields: Record<string, Field>, values: Record<string, unknown>): Record<string, string> {
  const made: Record<string, string> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (!field.generate || !field.store) continue;
    const value = field.generate(values);
    values[name] = value === null ? null : field.store(value);
    if (value !== null) made[name] = value;
  }
  return made;
}

/** Marks generated values to be shown with this freshly created row. */
export function revealOnce(row: object, made: Record<string, string>): void {
  if (Object.keys(made).length) revealed.set(row, made);
}

/** The generated values of a freshly created row, if any. */
export function revealedSecrets(row: object): Record<string, string> | undefined {
  return revealed.get(row);
}

export interface NumberOptions extends FieldOptions {
  min?: number;
  max?: number;
}

export interface IntegerOptions extends NumberOptions {
  /** [value, label] pairs: OPTIONS shows the field as a choice, as AWX does for verbosity. */
  choices?: readonly (readonly [number, string])[];
}

export function integer(opts: IntegerOptions = {}): Field {
  const field = numeric(opts, true);
  if (!opts.choices) return field;
  const values = new Set(opts.choices.map(([v]) => v));
  return {
    ...field,
    optionsType: 'choice',
    choices: opts.choices,
    parse: (value) => {
      const n = field.parse(value);
      if (n !== null && !values.has(n as number)) throw new FieldProblem(`"${String(value)}" is not a valid choice.`);
      return n;
    },
  };
}

export function float(opts: NumberOptions = {}): Field {
  return numeric(opts, false);
}

/** The text of an integer, and of a number, that a numeric field takes for one (as DRF reads "5" and "1.5"). */
export const INTEGER_TEXT = /^-?[0-9]+$/;
export const NUMBER_TEXT = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
/** The range of the database's integer columns: past it, a value is no valid integer. */
export const MAX_INTEGER = 2_147_483_647;

function numeric(opts: NumberOptions, whole: boolean): Field {
  const field: Field = {
    ...base(opts),
    optionsType: whole ? 'integer' : 'float',
    filterKind: whole ? 'integer' : 'float',
    min: opts.min,
    max: opts.max,
    parse: (value) =>
      nullOr(field, value, (v) => {
        const n = typeof v === 'string' && (whole ? INTEGER_TEXT : NUMBER_TEXT).test(v) ? Number(v) : v;
        if (typeof n !== 'number' || !Number.isFinite(n)) throw new FieldProblem(whole ? 'A valid integer is required.' : 'A valid number is required.');
        if (whole && (!Number.isInteger(n) || Math.abs(n) > MAX_INTEGER)) throw new FieldProblem('A valid integer is required.');
        if (opts.min !== undefined && n < opts.min) throw new FieldProblem(`Ensure this value is greater than or equal to ${opts.min}.`);
        if (opts.max !== undefined && n > opts.max) throw new FieldProblem(`Ensure this value is less than or equal to ${opts.max}.`);
        return n;
      }),
    serialize: identity,
  };
  return field;
}

/** What a boolean field reads as true and as false besides the booleans themselves. */
export const TRUE_VALUES: readonly unknown[] = ['true', 'True', 1];
export const FALSE_VALUES: readonly unknown[] = ['false', 'False', 0];

export function boolean(opts: FieldOptions = {}): Field {
  const field: Field = {
    ...base({ default: false, ...opts }),
    optionsType: 'boolean',
    filterKind: 'boolean',
    nullMeans: false,
    parse: (value) =>
      nullOr(field, value, (v) => {
        if (typeof v === 'boolean') return v;
        if (TRUE_VALUES.includes(v)) return true;
        if (FALSE_VALUES.includes(v)) return false;
        throw new FieldProblem('Must be a valid boolean.');
      }),
    serialize: identity,
  };
  return field;
}

/** The values of a choice field (value, or [value, label]). */
export type Choices = readonly (string | readonly [string, string])[];

export function choice(choices: Choices, opts: FieldOptions = {}): Field {
  const pairs = choices.map((c) => (typeof c === 'string' ? ([c, c] as const) : c));
  const values = new Set(pairs.map(([v]) => v));
  const field: Field = {
    ...base(opts),
    optionsType: 'choice',
    filterKind: 'text',
    nullMeans: '',
    choices: pairs,
    parse: (value) =>
      nullOr(field, value, (v) => {
        if (typeof v !== 'string' || !values.has(v)) throw new FieldProblem(`"${String(v)}" is not a valid choice.`);
        return v;
      }),
    serialize: identity,
  };
  return field;
}

/** The text of a date or datetime a datetime field takes, surrounding blanks allowed (as a JSON Schema pattern, so without flags). */
export const ISO_DATETIME_TEXT = '^\\s*(\\d{4})-(\\d\\d)-(\\d\\d)(?:[Tt ](\\d\\d):(\\d\\d)(?::(\\d\\d)(\\.\\d{1,6})?)?([Zz]|[+-]\\d\\d:?\\d\\d)?)?\\s*$';
const ISO_DATETIME = new RegExp(ISO_DATETIME_TEXT);

/**
 * Reads an ISO 8601 date or datetime (YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS[.ffffff]][Z|±HH:MM]) and
 * answers it in full form with an explicit zone, keeping microseconds; without an offset it is
 * UTC, whatever the process time zone. Answers null for anything else.
 */
export function normalizeIsoDatetime(text: string): string | null {
  const m = ISO_DATETIME.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', sec = '00', frac = '', offset = 'Z'] = m;
  const zone = offset.toUpperCase() === 'Z' ? 'Z' : offset.length === 5 ? `${offset.slice(0, 3)}:${offset.slice(3)}` : offset;
  const normalized = `${y}-${mo}-${d}T${h}:${mi}:${sec}${frac}${zone}`;
  const date = new Date(normalized);
  if (Number.isNaN(date.getTime()) || Number(y) < 1) return null;
  // Reject impossible calendar dates (2021-02-30) rather than rolling them over.
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return null;
  return normalized;
}

export function parseIsoDatetime(text: string): Date | null {
  const normalized = normalizeIsoDatetime(text);
  return normalized === null ? null : new Date(normalized);
}

export function datetime(opts: FieldOptions = {}): Field {
  const field: Field = {
    ...base({ nullable: true, ...opts }),
    optionsType: 'datetime',
    filterKind: 'datetime',
    parse: (value) =>
      nullOr(field, value, (v) => {
        const d = typeof v === 'string' ? parseIsoDatetime(v) : null;
        if (!d) throw new FieldProblem('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].');
        return d;
      }),
    serialize: (v) => (v instanceof Date ? v.toISOString() : v ?? null),
  };
  return field;
}

export function json(opts: FieldOptions = {}): Field {
  const field: Field = {
    ...base({ default: {}, filterable: false, ...opts }),
    optionsType: 'json',
    filterKind: 'json',
    parse: (value) => nullOr(field, value, (v) => v),
    serialize: identity,
  };
  return field;
}

/** A JSON list of some of `choices`, without repeats (drift categories, policy applies_to). */
export function choiceList(choices: readonly string[], opts: FieldOptions = {}): Field {
  const field = json({ default: [], ...opts });
  return {
    ...field,
    choices: choices.map((c) => [c, c] as const),
    // Repeats are dropped, not refused.
    valueSchema: { type: 'array', items: { type: 'string', enum: [...choices] } },
    parse: (value) => {
      if (!Array.isArray(value)) throw new FieldProblem(`Expected a list of items but got type "${value === null ? 'null' : typeof value}".`);
      const unknown = value.filter((v) => typeof v !== 'string' || !choices.includes(v));
      if (unknown.length) throw new FieldProblem(`"${String(unknown[0])}" is not a valid choice. Choose from ${choices.join(', ')}.`);
      return [...new Set(value as string[])];
    },
  };
}

/** A reference to another resource by id; the column is <name>_id. */
export function ref(resource: string, opts: FieldOptions = {}): Field {
  const field: Field = {
    ...base({ nullable: !opts.required, ...opts }),
    optionsType: 'id',
    filterKind: 'integer',
    ref: resource,
    // "" means no object, as Django REST framework's related fields read it (RelatedField.run_validation).
    parse: (value) =>
      nullOr(field, value === '' ? null : value, (v) => {
        const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
        if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 2_147_483_647) {
          throw new FieldProblem(`Incorrect type. Expected pk value, received ${typeof v === 'string' ? 'str' : typeof v}.`);
        }
        return n;
      }),
    serialize: identity,
  };
  return field;
}

/** Ids of objects of one resource (a launch's credentials, labels, instance groups), as AWX's list_of_ids. */
export function listOfIds(resource: string, opts: FieldOptions = {}): Field {
  const one = ref(resource);
  const field: Field = {
    ...base({ filterable: false, ...opts }),
    optionsType: 'list_of_ids',
    filterKind: 'integer',
    ref: resource,
    parse: (value) =>
      nullOr(field, value, (v) => {
        if (!Array.isArray(v)) throw new FieldProblem(`Expected a list of items but got type "${typeof v}".`);
        return v.map((item) => one.parse(item));
      }),
    serialize: identity,
  };
  return field;
}

/**
 * A field of the composition's `vocabulary` entry `name`: until composed (outside a service) it
 * refuses every value, as its choices are not known.
 */
export function composedField(name: string, make: (entry: unknown) => Field, opts: FieldOptions = {}): Field {
  const unknownYet = json(opts);
  return {
    ...unknownYet,
    parse: () => {
      throw new Error(`the field of ${name} is read outside a composed service`);
    },
    composed: (vocabulary) => {
      if (!(name in vocabulary)) throw new Error(`the composition has no vocabulary ${name}`);
      return make(vocabulary[name]);
    },
  };
}

/** Fills in the column and label a field takes from its name. */
export function completeField(name: string, field: Field): Field {
  return {
    ...field,
    column: field.column || (field.ref ? `${name}_id` : name),
    label: field.label || name.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
  };
}
