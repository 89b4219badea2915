import { useState } from 'react';
import { Button, Form, FormGroup, FormHelperText, HelperText, HelperTextItem, Modal, ModalBody, ModalFooter, ModalHeader, TextInput } from '@patternfly/react-core';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';

const LABELS: Record<string, string> = {
  ssh_password: 'SSH password',
  ssh_key_unlock: 'Private key passphrase',
  become_password: 'Privilege escalation password',
};
const labelOf = (name: string) => LABELS[name] ?? (name.startsWith('vault_password') ? `Vault password${name.includes('.') ? ` (${name.split('.')[1]})` : ''}` : name.replace(/_/g, ' '));

/** The credential passwords a relaunch needs, asked for before it starts. */
export function PasswordsModal({ names, onSubmit, onClose }: { names: string[]; onSubmit: (values: Record<string, string>) => Promise<void>; onClose: () => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const fieldErrors = error instanceof ApiError ? error.fieldErrors : {};
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      await onSubmit(values);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="passwords-title">
      <ModalHeader title="Passwords needed to relaunch" labelId="passwords-title" />
      <ModalBody>
        <Form id="relaunch-passwords" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
          {names.map((name) => (
            <FormGroup key={name} label={labelOf(name)} fieldId={`password-${name}`} isRequired>
              <TextInput id={`password-${name}`} type="password" value={values[name] ?? ''} onChange={(_e, v) => setValues({ ...values, [name]: v })} isRequired />
            </FormGroup>
          ))}
          {fieldErrors.credential_passwords && (
            <FormHelperText>
              <HelperText>
                <HelperTextItem variant="error">{fieldErrors.credential_passwords}</HelperTextItem>
              </HelperText>
            </FormHelperText>
          )}
        </Form>
        {!fieldErrors.credential_passwords && <ErrorAlert error={error} title="Could not relaunch" />}
      </ModalBody>
      <ModalFooter>
        <Button type="submit" form="relaunch-passwords" isLoading={busy} isDisabled={busy}>
          Relaunch
        </Button>
        <Button variant="link" onClick={onClose}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}
