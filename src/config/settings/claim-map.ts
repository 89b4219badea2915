/** Which claims of an OpenID Connect sign-in give the user's fields. */
import { FieldProblem, json, type Field, type FieldOptions } from '../../api/fields.ts';

export const USER_FIELDS_FROM_CLAIMS = ['username', 'email', 'first_name', 'last_name'] as const;
export type ClaimMap = Record<(typeof USER_FIELDS_FROM_CLAIMS)[number], string>;

export const DEFAULT_CLAIM_MAP: ClaimMap = { username: 'preferred_username', email: 'email', first_name: 'given_name', last_name: 'family_name' };

const CLAIM_NAME = /^[A-Za-z0-9_:.\-/]{1,256}$/;

/** {user field: claim name}; fields left out keep their default claim. */
export function claimMapField(opts: FieldOptions & { default: ClaimMap }): Field {
  const field = json(opts);
  return {
    ...field,
    parse: (value) => {
      if (value === null) return { ...opts.default };
      if (typeof value !== 'object' || Array.isArray(value)) throw new FieldProblem('Expected a dictionary of items.');
      const unknown = Object.keys(value).filter((k) => !(USER_FIELDS_FROM_CLAIMS as readonly string[]).includes(k));
      if (unknown.length) throw new FieldProblem(`Invalid key(s) ${unknown.join(', ')}. Allowed: ${USER_FIELDS_FROM_CLAIMS.join(', ')}.`);
      const out: Record<string, string> = { ...opts.default };
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (typeof v !== 'string' || !CLAIM_NAME.test(v)) throw new FieldProblem(`${k}: expected a claim name (letters, digits, _ : . - /).`);
        out[k] = v;
      }
      return out;
    },
  };
}
