import { useState } from 'react';
import { Button, Form, FormGroup, Modal, ModalBody, ModalFooter, ModalHeader, TextInput, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import { http } from '../../api/client';
import { ApiError } from '../../api/errors';
import type { ApiBody, ResourceObject } from '../../api/types';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { ErrorAlert } from '../../components/ErrorAlert';

export interface ChildTarget {
  group: ResourceObject<'groups'>;
}

/** Makes a new group a child of a group, or links one of the inventory's existing groups under it. */
export function GroupChildModal({ target, onClose, onDone }: { target: ChildTarget | null; onClose: () => void; onDone: () => void }) {
  const [mode, setMode] = useState<'new' | 'existing'>('new');
  const [name, setName] = useState('');
  const [existing, setExisting] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const group = target?.group;

  const close = () => {
    setName('');
    setExisting(null);
    setError(null);
    onClose();
  };
  const save = async () => {
    if (!group) return;
    setBusy(true);
    setError(null);
    try {
      // Save is disabled until an existing group is picked.
      const body = mode === 'new' ? { name, inventory: group.inventory } : { id: existing! };
      await http.post(group.related.children, body satisfies ApiBody<'/api/v2/groups/{id}/children/', 'post'>);
      onDone();
      close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const nameError = error instanceof ApiError ? error.fieldErrors.name : undefined;

  return (
    <Modal isOpen={!!group} onClose={close} variant="small" aria-labelledby="child-title">
      <ModalHeader title={`Child group of ${String(group?.name ?? '')}`} labelId="child-title" />
      <ModalBody>
        <Form onSubmit={(e) => { e.preventDefault(); void save(); }}>
          <ErrorAlert error={nameError ? null : error} title="Not added" />
          <ToggleGroup aria-label="New or existing group">
            <ToggleGroupItem text="New group" isSelected={mode === 'new'} onChange={() => setMode('new')} />
            <ToggleGroupItem text="Existing group" isSelected={mode === 'existing'} onChange={() => setMode('existing')} />
          </ToggleGroup>
          {mode === 'new' ? (
            <FormGroup label="Name" fieldId="child-name" isRequired>
              <TextInput id="child-name" value={name} onChange={(_e, v) => setName(v)} validated={nameError ? 'error' : 'default'} />
              {nameError && <div className="pf-v6-c-helper-text__item pf-m-error" role="alert">{nameError}</div>}
            </FormGroup>
          ) : (
            group && (
              <FormGroup label="Group" fieldId="child-existing">
                <ReferenceSelect id="child-existing" label="Group" listUrl="/api/v2/groups/" query={{ inventory: Number(group.inventory) }} value={existing} onChange={setExisting} />
              </FormGroup>
            )
          )}
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={save} isLoading={busy} isDisabled={busy || (mode === 'new' ? !name.trim() : !existing)}>Save</Button>
        <Button variant="link" onClick={close}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
