import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Form, FormGroup, Modal, ModalBody, ModalFooter, ModalHeader, TextArea } from '@patternfly/react-core';
import { CheckIcon, TimesIcon } from '@patternfly/react-icons';
import { http } from '../../api/client';
import type { ApiAnswer, ApiBody } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { fieldHelp } from '../../components/field-help';
import { useServerChange } from '../../hooks/use-server-change';
import { ApiError } from '../../api/errors';
import type { ServiceRequest } from './request-cells';

const MAX_REASON = 4096;

/** Approve and Reject of a pending request, for those the API lets decide it (GET approve/ says). */
export default function DecisionActions({ object, variant }: { object: ServiceRequest; variant: 'row' | 'detail' }) {
  const pending = object.status === 'pending_approval';
  const may = useQuery({
    queryKey: ['can-decide', object.id, object.status],
    queryFn: () => http.get<ApiAnswer<'/api/v2/service_requests/{id}/approve/'>>(`${object.url}approve/`),
    enabled: pending,
    staleTime: 30_000,
  });
  const { busy, error, change } = useServerChange();
  const [rejecting, setRejecting] = useState(false);
  if (!pending || !may.data?.can_approve) return null;
  const size = variant === 'row' ? 'sm' : 'default';
  const label = `request #${object.id}`;
  return (
    <>
      <Button variant="primary" size={size} icon={<CheckIcon />} isDisabled={busy} isLoading={busy} onClick={() => change(() => http.post(`${object.url}approve/`, {}))} aria-label={`Approve ${label}`}>
        Approve
      </Button>
      <Button variant="secondary" isDanger size={size} icon={<TimesIcon />} isDisabled={busy} onClick={() => setRejecting(true)} aria-label={`Reject ${label}`}>
        Reject
      </Button>
      <ErrorAlert error={error} title="Not approved" />
      {rejecting && <RejectModal request={object} onClose={() => setRejecting(false)} />}
    </>
  );
}

function RejectModal({ request, onClose }: { request: ServiceRequest; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const { busy, error, change } = useServerChange();
  const tooLong = reason.length > MAX_REASON;
  const fieldError = tooLong ? `At most ${MAX_REASON} characters.` : error instanceof ApiError ? error.fieldErrors.reason : undefined;
  const reject = async () => {
    if (tooLong) return;
    const done = await change(() => http.post(`${request.url}reject/`, { reason } satisfies ApiBody<'/api/v2/service_requests/{id}/reject/', 'post'>));
    if (done) onClose();
  };
  return (
    <Modal isOpen variant="small" onClose={onClose} aria-labelledby="reject-title">
      <ModalHeader title={`Reject request #${request.id}`} labelId="reject-title" />
      <ModalBody>
        <ErrorAlert error={fieldError ? null : error} title="Not rejected" />
        <Form onSubmit={(e) => { e.preventDefault(); void reject(); }}>
          <FormGroup label="Reason" fieldId="reject-reason">
            <TextArea id="reject-reason" value={reason} onChange={(_e, v) => setReason(v)} validated={fieldError ? 'error' : 'default'} resizeOrientation="vertical" aria-describedby="reject-reason-help" autoFocus />
            {fieldHelp('reject-reason', fieldError, 'Shown to the requester.')}
          </FormGroup>
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={reject} isDisabled={busy || tooLong} isLoading={busy}>Reject</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
