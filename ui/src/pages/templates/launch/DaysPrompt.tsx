import { useState } from 'react';
import { Button, Form, FormGroup, FormHelperText, HelperText, HelperTextItem, Modal, ModalBody, ModalFooter, ModalHeader, TextInput } from '@patternfly/react-core';
import { http } from '../../../api/client';
import { ApiError } from '../../../api/errors';
import type { ResourceObject } from '../../../api/types';
import { ErrorAlert } from '../../../components/ErrorAlert';

/** Management jobs that keep a number of days of data (extra_vars {days}). */
export const takesDays = (template: ResourceObject<'system_job_templates'>) => template.job_type === 'cleanup_jobs' || template.job_type === 'cleanup_activitystream';

export function DaysPrompt({ template, onClose, onLaunched }: { template: ResourceObject<'system_job_templates'>; onClose: () => void; onLaunched: (answer: Record<string, unknown>) => void }) {
  const [days, setDays] = useState('30');
  const [error, setError] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const fieldError = error instanceof ApiError ? error.fieldErrors.extra_vars ?? error.fieldErrors.days : undefined;
  const valid = /^\d+$/.test(days);
  const launch = async (e?: React.FormEvent) => {
    e?.preventDefault();
    if (!valid) return;
    setSending(true);
    setError(null);
    try {
      onLaunched(await http.post(`${template.url}launch/`, { extra_vars: { days: Number(days) } }));
    } catch (err) {
      setError(err);
    } finally {
      setSending(false);
    }
  };
  return (
    <Modal isOpen variant="small" onClose={onClose} aria-labelledby="days-title">
      <ModalHeader title={`Launch ${String(template.name)}`} labelId="days-title" />
      <ModalBody>
        {!fieldError && <ErrorAlert error={error} title="Not launched" />}
        <Form onSubmit={launch}>
          <FormGroup label="Days of data to keep" fieldId="launch-days" isRequired>
            <TextInput id="launch-days" type="number" min={0} value={days} onChange={(_e, v) => setDays(v)} validated={!valid || fieldError ? 'error' : 'default'} />
            <FormHelperText>
              <HelperText>
                <HelperTextItem variant={!valid || fieldError ? 'error' : 'default'}>{fieldError ?? (valid ? 'Older data is removed.' : 'A whole number of days.')}</HelperTextItem>
              </HelperText>
            </FormHelperText>
          </FormGroup>
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={() => launch()} isLoading={sending} isDisabled={sending || !valid}>Launch</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
