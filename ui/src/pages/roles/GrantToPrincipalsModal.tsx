import { useState } from 'react';
import { Button, Form, FormGroup, LabelGroup, Modal, ModalBody, ModalFooter, ModalHeader, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { ErrorAlert } from '../../components/ErrorAlert';
import { PrincipalChip } from './PrincipalChip';
import { RoleChecklist } from './RoleChecklist';
import { grantRole, type AccessObject, type ObjectRole, type PrincipalKind } from './role-grants';

/** Gives roles of one object to users or teams: pick who, then which roles. */
export function GrantToPrincipalsModal({ object, isOpen, onClose, onGranted }: { object: AccessObject; isOpen: boolean; onClose: () => void; onGranted: () => void }) {
  const [kind, setKind] = useState<PrincipalKind>('users');
  const [picked, setPicked] = useState<number[]>([]);
  const [roles, setRoles] = useState<number[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const objectRoles = Object.entries((object.summary_fields?.object_roles ?? {}) as Record<string, ObjectRole>).filter(([, r]) => kind === 'users' || !r.user_only);

  const reset = () => {
    setPicked([]);
    setRoles([]);
    setError(null);
  };
  const close = () => {
    reset();
    onClose();
  };
  const switchKind = (next: PrincipalKind) => {
    setKind(next);
    reset();
  };
  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      for (const principal of picked) for (const role of roles) await grantRole(kind, principal, role);
      onGranted();
      close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal isOpen={isOpen} onClose={close} variant="medium" aria-labelledby="grant-title">
      <ModalHeader title="Add roles" labelId="grant-title" description={`Roles of ${String(object.name ?? object.username ?? '')}`} />
      <ModalBody>
        <Form onSubmit={(e) => e.preventDefault()}>
          <ErrorAlert error={error} title="Not granted" />
          <FormGroup label="Give roles to" fieldId="grant-kind" role="radiogroup">
            <ToggleGroup aria-label="Give roles to">
              <ToggleGroupItem text="Users" buttonId="grant-kind" isSelected={kind === 'users'} onChange={() => switchKind('users')} />
              <ToggleGroupItem text="Teams" isSelected={kind === 'teams'} onChange={() => switchKind('teams')} />
            </ToggleGroup>
          </FormGroup>
          <FormGroup label={kind === 'users' ? 'Users' : 'Teams'} fieldId="grant-principal">
            <ReferenceSelect
              key={kind}
              id="grant-principal"
              label={kind === 'users' ? 'Users' : 'Teams'}
              listUrl={`/api/v2/${kind}/`}
              value={null}
              onChange={(id) => id && !picked.includes(id) && setPicked([...picked, id])}
              query={kind === 'users' ? { order_by: 'username' } : {}}
            />
            {picked.length > 0 && (
              <LabelGroup categoryName="Selected" style={{ marginTop: '0.5rem' }}>
                {picked.map((id) => <PrincipalChip key={`${kind}-${id}`} kind={kind} id={id} onRemove={() => setPicked(picked.filter((p) => p !== id))} />)}
              </LabelGroup>
            )}
          </FormGroup>
          <FormGroup label="Roles" fieldId="grant-roles" role="group">
            <RoleChecklist roles={objectRoles} selected={roles} onChange={setRoles} idPrefix="grant-role" />
          </FormGroup>
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={save} isDisabled={busy || !picked.length || !roles.length} isLoading={busy}>Save</Button>
        <Button variant="link" onClick={close}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
