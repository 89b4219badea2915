import { useState, type FormEvent } from 'react';
import { Alert, Button, ClipboardCopy, Form, FormGroup, FormSelect, FormSelectOption, Modal, ModalBody, ModalFooter, ModalHeader, TextInput } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ApiAnswer, ApiBody, FieldOf } from '../../api/types';
import { enumKeys } from '../../api/enums';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';

type Scope = FieldOf<'tokens', 'scope'>;
const SCOPES: Record<Scope, string> = { write: 'Write: everything the user may do', read: 'Read: GET requests only' };
type Created = ApiAnswer<'/api/v2/users/{id}/personal_tokens/', 'post'>;

/**
 * A new personal access token of the signed-in user (POST users/{id}/personal_tokens/): its
 * description and scope, then the token itself, shown this once.
 */
export function CreateTokenModal({ url, onClose }: { url: string; onClose: () => void }) {
  const [description, setDescription] = useState('');
  const [scope, setScope] = useState<Scope>('write');
  const { busy, error, change } = useServerChange();
  const [created, setCreated] = useState<Created | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = { description, scope } satisfies ApiBody<'/api/v2/users/{id}/personal_tokens/', 'post'>;
    const answer = await change(() => http.post<Created>(url, body));
    if (answer) setCreated(answer);
  };

  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="create-token-title">
      <ModalHeader title={created ? 'Token created' : 'Create a token'} labelId="create-token-title" />
      <ModalBody>
        {created ? (
          <>
            <Alert variant="warning" isInline isPlain title="Copy the token now: it is not shown again." />
            <FormGroup label="Token" fieldId="created-token">
              <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied" textAriaLabel="Token" id="created-token">{String(created.token)}</ClipboardCopy>
            </FormGroup>
            <p>Send it as <code>Authorization: Bearer &lt;token&gt;</code>. Scope: {created.scope}. Expires: {created.expires ? new Date(created.expires).toLocaleString() : 'never'}.</p>
          </>
        ) : (
          <Form id="create-token-form" onSubmit={submit}>
            <FormGroup label="Description" fieldId="token-description">
              <TextInput id="token-description" value={description} onChange={(_e, v) => setDescription(v)} />
            </FormGroup>
            <FormGroup label="Scope" fieldId="token-scope" isRequired>
              <FormSelect id="token-scope" value={scope} onChange={(_e, v) => setScope(enumKeys(SCOPES).find((s) => s === v) ?? 'write')}>
                {enumKeys(SCOPES).map((s) => <FormSelectOption key={s} value={s} label={SCOPES[s]} />)}
              </FormSelect>
            </FormGroup>
            <ErrorAlert error={error} title="Token not created" />
          </Form>
        )}
      </ModalBody>
      <ModalFooter>
        {created ? (
          <Button variant="primary" onClick={onClose}>Done</Button>
        ) : (
          <>
            <Button variant="primary" type="submit" form="create-token-form" isLoading={busy} isDisabled={busy}>Create</Button>
            <Button variant="link" onClick={onClose}>Cancel</Button>
          </>
        )}
      </ModalFooter>
    </Modal>
  );
}
