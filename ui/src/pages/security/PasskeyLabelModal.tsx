import { useState, type FormEvent } from 'react';
import { Button, Form, FormGroup, FormHelperText, HelperText, HelperTextItem, Modal, ModalBody, ModalFooter, ModalHeader, TextInput } from '@patternfly/react-core';
import { ApiError } from '../../api/errors';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';

/**
 * Asks a passkey's name, then `save`s it: registering a new passkey (the browser then asks the
 * authenticator) or renaming one. The API's message about the label appears under the field.
 */
export function PasskeyLabelModal({ title, action, failure, initial = '', placeholder, help, save, onClose }: {
  title: string;
  action: string;
  /** The title of an error that is not about the name. */
  failure: string;
  initial?: string;
  placeholder?: string;
  help: string;
  save: (label: string) => Promise<unknown>;
  onClose: () => void;
}) {
  const [label, setLabel] = useState(initial);
  const { busy, error, change } = useServerChange();
  const labelError = error instanceof ApiError ? error.fieldErrors.label : undefined;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const saved = await change(async () => {
      await save(label);
      return true;
    });
    if (saved) onClose();
  };

  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="passkey-label-title">
      <ModalHeader title={title} labelId="passkey-label-title" />
      <ModalBody>
        <Form id="passkey-label-form" onSubmit={submit}>
          <FormGroup label="Name" fieldId="passkey-label">
            <TextInput id="passkey-label" value={label} onChange={(_e, v) => setLabel(v)} placeholder={placeholder} validated={labelError ? 'error' : 'default'} autoFocus />
            <FormHelperText>
              <HelperText>
                <HelperTextItem variant={labelError ? 'error' : 'default'}>{labelError ?? help}</HelperTextItem>
              </HelperText>
            </FormHelperText>
          </FormGroup>
          {!labelError && <ErrorAlert error={error} title={failure} />}
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" type="submit" form="passkey-label-form" isLoading={busy} isDisabled={busy}>{action}</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
