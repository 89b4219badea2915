import { useState } from 'react';
import { Button, ClipboardCopy, FormGroup, InputGroup, InputGroupItem } from '@patternfly/react-core';
import { http } from '../../../api/client';
import type { FieldMeta } from '../../../api/types';
import { FieldInput } from '../../../components/FieldInput';
import { ErrorAlert } from '../../../components/ErrorAlert';

interface Key {
  webhook_key: string;
}

/**
 * A template's webhook (AWX's WebhookTemplateMixin): the service, the URL to give it, the key it
 * signs with (read from webhook_key/ when asked, replaced with Generate) and the token credential
 * the status is posted back with.
 */
export function WebhookSection({ fields, values, set, errors, templateUrl, savedService, plural, id }: {
  fields: Record<string, FieldMeta>;
  values: Record<string, unknown>;
  set: (name: string, value: unknown) => void;
  errors: Record<string, string>;
  /** The saved template's API address; a new one gets its key when saved. */
  templateUrl?: string;
  /** The service the saved template has: it has a key only then. */
  savedService?: string;
  plural: string;
  id?: number;
}) {
  const [key, setKey] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const service = String(values.webhook_service ?? '');
  const keyAction = async (method: 'get' | 'post') => {
    setFailure(null);
    try {
      const answer = method === 'get' ? await http.get<Key>(`${templateUrl}webhook_key/`) : await http.post<Key>(`${templateUrl}webhook_key/`, {});
      setKey(answer.webhook_key);
    } catch (err) {
      setFailure(err);
    }
  };
  return (
    <>
      {fields.webhook_service && (
        <FieldInput name="webhook_service" label="Webhook service" meta={fields.webhook_service} value={values.webhook_service} onChange={(v) => set('webhook_service', v)} error={errors.webhook_service} />
      )}
      <FormGroup label="Webhook URL" fieldId="webhook-url">
        {id && service ? (
          <ClipboardCopy id="webhook-url" isReadOnly hoverTip="Copy" clickTip="Copied">{`${window.location.origin}/api/v2/${plural}/${id}/${service}/`}</ClipboardCopy>
        ) : (
          <p className="drover-subtle">{service ? 'Shown once the template is saved.' : 'Choose the service first.'}</p>
        )}
      </FormGroup>
      <FormGroup label="Webhook key" fieldId="webhook-key">
        <ErrorAlert error={failure} />
        {templateUrl && savedService ? (
          <InputGroup>
            <InputGroupItem isFill>
              {key === null ? <p className="drover-subtle" id="webhook-key">Hidden</p> : <ClipboardCopy id="webhook-key" isReadOnly hoverTip="Copy" clickTip="Copied">{key}</ClipboardCopy>}
            </InputGroupItem>
            <InputGroupItem>
              {key === null && <Button variant="control" onClick={() => void keyAction('get')}>Show key</Button>}
              <Button variant="control" onClick={() => void keyAction('post')}>Generate</Button>
            </InputGroupItem>
          </InputGroup>
        ) : (
          <p className="drover-subtle">A key is generated when the template is saved with a service.</p>
        )}
      </FormGroup>
      {fields.webhook_credential && (
        <FieldInput name="webhook_credential" label="Webhook credential" meta={fields.webhook_credential} value={values.webhook_credential} onChange={(v) => set('webhook_credential', v)} error={errors.webhook_credential} />
      )}
    </>
  );
}
