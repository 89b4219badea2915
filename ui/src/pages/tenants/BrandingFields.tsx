import { Flex, FlexItem, FormGroup, Grid, GridItem, TextInput } from '@patternfly/react-core';
import { fieldHelp } from '../../components/field-help';
import { BRANDING, BRANDING_FIELDS, isColor, type Branding, type BrandingField } from './tenant-types';

export const emptyBranding = (): Branding => ({ logo_url: '', primary_color: '', secondary_color: '', custom_domain: '', contact_email: '' });

const COLORS = new Set<BrandingField>(['primary_color', 'secondary_color']);

/** The branding fields; colours also with the browser's colour picker. */
export function BrandingFields({ value, onChange, errors }: { value: Branding; onChange: (value: Branding) => void; errors: Record<string, string> }) {
  const set = (field: BrandingField, typed: string) => onChange({ ...value, [field]: typed });
  return (
    <Grid hasGutter>
      {BRANDING_FIELDS.map((field) => {
        const id = `tenant-branding-${field}`;
        const error = errors[`branding.${field}`];
        const input = (
          <TextInput
            id={id}
            type={BRANDING[field].type === 'email' ? 'email' : 'text'}
            value={value[field]}
            onChange={(_e, typed) => set(field, typed)}
            validated={error ? 'error' : 'default'}
            aria-describedby={`${id}-help`}
          />
        );
        return (
          <GridItem key={field} span={12} md={6}>
            <FormGroup label={BRANDING[field].label} fieldId={id}>
              {COLORS.has(field) ? (
                <Flex spaceItems={{ default: 'spaceItemsSm' }} flexWrap={{ default: 'nowrap' }} alignItems={{ default: 'alignItemsCenter' }}>
                  <FlexItem grow={{ default: 'grow' }}>{input}</FlexItem>
                  <FlexItem>
                    <input
                      type="color"
                      className="drover-color-picker"
                      aria-label={`Pick the ${BRANDING[field].label.toLowerCase()}`}
                      value={isColor(value[field]) ? value[field].toLowerCase() : '#000000'}
                      onChange={(e) => set(field, e.target.value)}
                    />
                  </FlexItem>
                </Flex>
              ) : (
                input
              )}
              {fieldHelp(id, error, BRANDING[field].help)}
            </FormGroup>
          </GridItem>
        );
      })}
    </Grid>
  );
}
