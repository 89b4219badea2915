import { FormGroup, Grid, GridItem, TextInput } from '@patternfly/react-core';
import { fieldHelp } from '../../components/field-help';
import { QUOTA_KINDS, QUOTAS, type QuotaKind } from './tenant-types';

/** The quotas as typed: text, so that empty (unlimited) and a bad value reach the API as they are. */
export type QuotaText = Record<QuotaKind, string>;

export const quotaText = (quota?: Partial<Record<QuotaKind, number | null>>): QuotaText =>
  Object.fromEntries(QUOTA_KINDS.map((kind) => [kind, quota?.[kind] ? String(quota[kind]) : ''])) as QuotaText;

/** What the body sends: empty is null (unlimited); a number as a number; anything else as typed, for the API to refuse by name. */
export function quotaBody(text: QuotaText): Record<QuotaKind, number | string | null> {
  const value = (typed: string) => (typed.trim() === '' ? null : /^\d+$/.test(typed.trim()) ? Number(typed.trim()) : typed);
  return Object.fromEntries(QUOTA_KINDS.map((kind) => [kind, value(text[kind])])) as Record<QuotaKind, number | string | null>;
}

export function QuotaFields({ value, onChange, errors }: { value: QuotaText; onChange: (value: QuotaText) => void; errors: Record<string, string> }) {
  return (
    <Grid hasGutter>
      {QUOTA_KINDS.map((kind) => {
        const id = `tenant-quota-${kind}`;
        const error = errors[`quota.${kind}`];
        return (
          <GridItem key={kind} span={12} md={6} xl={3}>
            <FormGroup label={QUOTAS[kind].label} fieldId={id}>
              <TextInput
                id={id}
                inputMode="numeric"
                value={value[kind]}
                placeholder="Unlimited"
                onChange={(_e, typed) => onChange({ ...value, [kind]: typed })}
                validated={error ? 'error' : 'default'}
                aria-describedby={`${id}-help`}
              />
              {fieldHelp(id, error, `${QUOTAS[kind].help} Empty or 0: unlimited.`)}
            </FormGroup>
          </GridItem>
        );
      })}
    </Grid>
  );
}
