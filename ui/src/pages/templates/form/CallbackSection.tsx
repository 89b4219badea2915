import { Button, ClipboardCopy, FormGroup, InputGroup, InputGroupItem, TextInput } from '@patternfly/react-core';
import { fieldHelp } from '../../../components/field-help';

/** A host config key as AWX's UI makes one: 32 random hexadecimal digits. */
export function newHostConfigKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The provisioning callback of a job template: the URL a host posts to (known once the template is
 * saved) and the host config key it must send, typed or generated.
 */
export function CallbackSection({ templateUrl, hostConfigKey, onChange, error }: {
  templateUrl?: string;
  hostConfigKey: string;
  onChange: (key: string) => void;
  error?: string;
}) {
  return (
    <>
      <FormGroup label="Provisioning callback URL" fieldId="callback-url">
        {templateUrl ? (
          <ClipboardCopy id="callback-url" isReadOnly hoverTip="Copy" clickTip="Copied">{`${window.location.origin}${templateUrl}callback/`}</ClipboardCopy>
        ) : (
          <p className="drover-subtle">Shown once the template is saved.</p>
        )}
      </FormGroup>
      <FormGroup label="Host config key" fieldId="field-host_config_key" isRequired>
        <InputGroup>
          <InputGroupItem isFill>
            <TextInput id="field-host_config_key" value={hostConfigKey} onChange={(_e, v) => onChange(v)} validated={error ? 'error' : 'default'} autoComplete="off" aria-describedby="field-host_config_key-help" />
          </InputGroupItem>
          <InputGroupItem>
            <Button variant="control" onClick={() => onChange(newHostConfigKey())}>Generate</Button>
          </InputGroupItem>
        </InputGroup>
        {fieldHelp('field-host_config_key', error, 'A host asks for its configuration by posting this key to the callback URL.')}
      </FormGroup>
    </>
  );
}
