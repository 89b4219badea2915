import { Button, Flex, FlexItem, FormGroup, FormHelperText, HelperText, HelperTextItem, Label, TextArea, TextInput } from '@patternfly/react-core';

/** What the API answers in place of a stored secret, and takes back to keep it unchanged. */
export const ENCRYPTED = '$encrypted$';

/**
 * A write-only secret: a stored one shows as "saved" with a Replace button and stays "$encrypted$"
 * (kept as it is by the API) unless replaced.
 */
export function SecretInput({ id, label, value, onChange, stored, multiline, required, error, helpText }: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** Whether a secret is saved (the value the object was read with was "$encrypted$"). */
  stored: boolean;
  multiline?: boolean;
  required?: boolean;
  error?: string;
  helpText?: string;
}) {
  const keeping = value === ENCRYPTED;
  const validated = error ? 'error' : 'default';
  return (
    <FormGroup label={label} fieldId={id} isRequired={required}>
      {keeping ? (
        <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }}>
          <FlexItem>
            <Label color="green" isCompact id={id} data-secret="saved">saved</Label>
          </FlexItem>
          <FlexItem>
            <Button variant="secondary" size="sm" aria-label={`Replace ${label}`} onClick={() => onChange('')}>Replace</Button>
          </FlexItem>
        </Flex>
      ) : (
        <Flex alignItems={{ default: 'alignItemsFlexStart' }} flexWrap={{ default: 'nowrap' }} spaceItems={{ default: 'spaceItemsSm' }}>
          <FlexItem grow={{ default: 'grow' }}>
            {multiline ? (
              <TextArea id={id} className="drover-mono" value={value} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} resizeOrientation="vertical" spellCheck={false} />
            ) : (
              <TextInput id={id} type="password" value={value} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} autoComplete="new-password" />
            )}
          </FlexItem>
          {stored && (
            <FlexItem>
              <Button variant="link" size="sm" aria-label={`Keep the saved ${label}`} onClick={() => onChange(ENCRYPTED)}>Keep saved</Button>
            </FlexItem>
          )}
        </Flex>
      )}
      <FormHelperText>
        <HelperText>
          <HelperTextItem variant={error ? 'error' : 'default'} id={`${id}-help`}>{error ?? helpText ?? ''}</HelperTextItem>
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}
