import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Button, Form, FormGroup, Modal, ModalBody, ModalFooter, ModalHeader, TextInput } from '@patternfly/react-core';
import { http } from '../../api/client';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useServerChange } from '../../hooks/use-server-change';
import type { Tenant } from './tenant-types';

/**
 * Deleting a tenant removes its organization and everything in it, so its name is typed first. The
 * API refuses while the tenant has runs going on (409): its message is shown here.
 */
export function DeleteTenantModal({ tenant, leavesPage, onClose }: { tenant: Tenant; leavesPage: boolean; onClose: () => void }) {
  const navigate = useNavigate();
  const [typed, setTyped] = useState('');
  const { busy, error, change } = useServerChange();
  const confirmed = typed === tenant.name;
  const remove = async () => {
    const done = await change(async () => {
      await http.delete(`${tenant.url}?confirm=true`);
      return true;
    });
    if (!done) return;
    onClose();
    if (leavesPage) navigate('/tenants');
  };
  return (
    <Modal isOpen onClose={onClose} variant="small" aria-labelledby="delete-tenant-title">
      <ModalHeader title={`Delete tenant ${tenant.name}?`} labelId="delete-tenant-title" titleIconVariant="danger" />
      <ModalBody>
        <p>
          This deletes the organization {tenant.name} and everything in it: templates, inventories and their hosts, credentials, projects
          and their checkouts, runs and their output, schedules, event rules and catalog items. It cannot be undone.
        </p>
        <Form onSubmit={(e) => { e.preventDefault(); if (confirmed) void remove(); }} style={{ marginTop: '1rem' }}>
          <FormGroup label={`Type ${tenant.name} to confirm`} fieldId="delete-tenant-name">
            <TextInput id="delete-tenant-name" value={typed} onChange={(_e, v) => setTyped(v)} autoComplete="off" />
          </FormGroup>
        </Form>
        <ErrorAlert error={error} title="Tenant not deleted" />
      </ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={() => void remove()} isLoading={busy} isDisabled={busy || !confirmed}>Delete</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
