/**
 * Values that become options of an ansible command line: host patterns (limit), tags and the
 * task to start at. They are data, so none may read as an option (a leading "-"), name a file
 * on the controller (Ansible reads a limit part starting with "@" as a file of host names) or
 * hold Jinja (an ad hoc command's host pattern becomes a play's `hosts:`, which Ansible templates).
 */
import { FieldProblem, text, type Field, type TextOptions } from '../api/fields.ts';
import type { FieldErrors } from '../api/errors.ts';
import { hasJinjaOpening, INLINE_JINJA } from './jinja-markers.ts';

/** pattern: a host pattern (limit); list: comma-separated names (tags); text: one name (a task). */
export type OptionKind = 'pattern' | 'list' | 'text';

export const LEADING_DASH = 'May not start with "-": Ansible would read it as an option.';
export const NAMES_A_FILE = 'May not name a file: no part of it may start with "@".';

/*
 * Ansible splits a host pattern on commas, or else on colons and blanks outside brackets, and
 * strips Python's blanks (which include \x1c-\x1f and \x85) from each part; an unmatched bracket
 * separates parts too. Any "@" after one of these (or at the start) may begin a part.
 */
const PART_STARTS_WITH_AT = /(?:^|[,:[\]\s\x1c-\x1f\x85])@/;

/** What is wrong with any value given as an ansible option's value (Jinja, a leading "-"), or null. */
export function commandLineValueProblem(value: string): string | null {
  if (hasJinjaOpening(value)) return INLINE_JINJA;
  if (value.startsWith('-')) return LEADING_DASH;
  return null;
}

/** What is wrong with a value of a job field given to an ansible option, or null. */
export function optionValueProblem(value: string, kind: OptionKind): string | null {
  const problem = commandLineValueProblem(value);
  if (problem) return problem;
  if (kind === 'text' ? value.startsWith('@') : PART_STARTS_WITH_AT.test(value)) return NAMES_A_FILE;
  return null;
}

/** A text field whose value reaches an ansible option. */
export function optionField(kind: OptionKind, opts: TextOptions = {}): Field {
  const field = text(opts);
  return {
    ...field,
    parse(value) {
      const parsed = field.parse(value);
      const problem = typeof parsed === 'string' ? optionValueProblem(parsed, kind) : null;
      if (problem) throw new FieldProblem(problem);
      return parsed;
    },
  };
}

/** Job and template fields that reach ansible-playbook's options, and how each is read. */
export const PLAYBOOK_OPTION_FIELDS: Record<string, OptionKind> = { limit: 'pattern', job_tags: 'list', skip_tags: 'list', start_at_task: 'text' };

/** Errors by field for the string values among `fields`. */
export function optionValueErrors(values: Record<string, unknown>, fields: Record<string, OptionKind>): FieldErrors {
  const errors: FieldErrors = {};
  for (const [name, kind] of Object.entries(fields)) {
    const value = values[name];
    const problem = typeof value === 'string' && value !== '' ? optionValueProblem(value, kind) : null;
    if (problem) errors[name] = [problem];
  }
  return errors;
}

/** `--flag=value` as one argument, so the value can never be read as an option of its own. */
export function optionArgument(flag: string, value: string): string {
  return `${flag}=${value}`;
}

/** Checks at run time, for values stored before these rules: throws with the field and its problem. */
export function assertOptionValues(values: Record<string, unknown>, fields: Record<string, OptionKind>): void {
  const [first] = Object.entries(optionValueErrors(values, fields));
  if (first) throw new Error(`${first[0]}: ${first[1][0]}`);
}
