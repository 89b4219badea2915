import { useState } from 'react';
import { Button, Form, FormGroup, FormSelect, FormSelectOption, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import { useObject } from '../../hooks/api-hooks';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { RoleChecklist } from './RoleChecklist';
import { grantRole, type ObjectRole, type PrincipalKind } from './role-grants';

/** Kinds of object whose roles a user or a team may be given. */
const RESOURCE_KINDS: [string, string][] = [
  ['organizations', 'Organization'],
  ['teams', 'Team'],
  ['credentials', 'Credential'],
  ['projects', 'Project'],
  ['inventories', 'Inventory'],
  ['job_templates', 'Job template'],
  ['workflow_job_templates', 'Workflow template'],
  ['instance_groups', 'Instance group'],
];

/** Gives a user or a team roles: pick a kind of object, one object of it, then its roles. */
export function GrantFromPrincipalModal({ kind, principal, isOpen, onClose, onGranted }: { kind: PrincipalKind; principal: ResourceObject<'users' | 'teams'>; isOpen: boolean; onClose: () => void; onGranted: () => void }) {
  const [resource, setResource] = useState('');
  const [target, setTarget] = useState<number | null>(null);
  const [roles, setRoles] = useState<number[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const object = useObject(resource && target ? `/api/v2/${resource}/${target}/` : undefined);
  const kinds = RESOURCE_KINDS.filter(([key]) => !(kind === 'teams' && key === 'teams'));
  const objectRoles = Object.entries((object.data?.summary_fields?.object_roles ?? {}) as Record<string, ObjectRole>).filter(([, r]) => kind === 'users' || !r.user_only);

  const close = () => {
    setResource('');
    setTarget(null);
    setRoles([]);
    setError(null);
    onClose();
  };
  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      for (const role of roles) await grantRole(kind, principal.id, role);
      onGranted();
      close();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const label = RESOURCE_KINDS.find(([key]) => key === resource)?.[1] ?? 'Object';

  return (
    <Modal isOpen={isOpen} onClose={close} variant="medium" aria-labelledby="grant-from-title">
      <ModalHeader title="Add roles" labelId="grant-from-title" description={`Roles for ${String(principal.username ?? principal.name)}`} />
      <ModalBody>
        <Form onSubmit={(e) => e.preventDefault()}>
          <ErrorAlert error={error} title="Not granted" />
          <FormGroup label="Kind of object" fieldId="grant-resource-kind">
            <FormSelect id="grant-resource-kind" value={resource} onChange={(_e, v) => { setResource(v); setTarget(null); setRoles([]); }}>
              <FormSelectOption value="" label="Choose…" />
              {kinds.map(([key, text]) => <FormSelectOption key={key} value={key} label={text} />)}
            </FormSelect>
          </FormGroup>
          {resource && (
            <FormGroup label={label} fieldId="grant-resource">
              <ReferenceSelect key={resource} id="grant-resource" label={label} listUrl={`/api/v2/${resource}/`} value={target} onChange={(id) => { setTarget(id); setRoles([]); }} />
            </FormGroup>
          )}
          {target && (
            <FormGroup label="Roles" fieldId="grant-from-roles" role="group">
              {object.isPending ? <Loading /> : object.error ? <ErrorAlert error={object.error} /> : <RoleChecklist roles={objectRoles} selected={roles} onChange={setRoles} idPrefix="grant-from-role" />}
            </FormGroup>
          )}
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={save} isDisabled={busy || !roles.length} isLoading={busy}>Save</Button>
        <Button variant="link" onClick={close}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
