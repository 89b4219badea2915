/**
 * How a resource's request body reads the value given for one field: the one place that says it,
 * for a body's values (crud.ts readBody) and for the words of a value the body's schema refuses
 * (field-schemas.ts bodyWords), so that both answer alike.
 */
import { ENCRYPTED, FieldProblem, type Field } from './fields.ts';

export type FieldReading = { value: unknown } | { problem: string } | { keep: true };

/** Keeps the stored value (a secret given back as $encrypted$). */
const KEEP: FieldReading = { keep: true };

/** The value `given` for `field` as stored, or its problem in Django REST framework's words; `existing` is the object an update changes. */
export function readField(field: Field, given: unknown, existing: Record<string, unknown> | null): FieldReading {
  // AWX's clients send null for every option left out: a text or choice field reads it as "", a boolean as false.
  const raw = given === null && !field.nullable && field.nullMeans !== undefined ? field.nullMeans : given;
  if (field.secret && raw === ENCRYPTED && existing) return KEEP;
  let value: unknown;
  try {
    value = field.parse(raw);
  } catch (err) {
    if (err instanceof FieldProblem) return { problem: err.message };
    throw err;
  }
  if (field.writeOnce && existing && value !== existing[field.column]) return { problem: 'This field cannot be changed once set.' };
  if (field.required && (value === null || value === '')) return { problem: value === null ? 'This field may not be null.' : 'This field may not be blank.' };
  return { value };
}
