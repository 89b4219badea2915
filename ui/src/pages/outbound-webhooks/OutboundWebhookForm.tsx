import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ActionGroup, Alert, Button, ClipboardCopy } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import { ResourceForm } from '../../components/ResourceForm';
import type { ResourceConfig } from '../../resources/types';

const ENCRYPTED = '$encrypted$';

/**
 * The generic form, and after an add whose signing key the service generated, that key: the create
 * answer is the only one that shows it, so it is shown once here to be copied into the receiver.
 */
export default function OutboundWebhookForm({ config, object }: { config: ResourceConfig; object?: ResourceObject<'outbound_webhooks'> }) {
  const navigate = useNavigate();
  const [created, setCreated] = useState<ResourceObject<'outbound_webhooks'> | null>(null);
  const open = (saved: ResourceObject<'outbound_webhooks'>) => navigate(`/${config.key}/${saved.id}`);

  if (created) {
    return (
      <>
        <Alert variant="info" isInline title="Copy the signing key now: it is not shown again.">
          <p>Receivers check each delivery's X-Svc-Signature with this key.</p>
          <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied" textAriaLabel="Generated signing key">
            {String(created.webhook_key)}
          </ClipboardCopy>
        </Alert>
        <ActionGroup>
          <Button variant="primary" onClick={() => open(created)}>Done</Button>
        </ActionGroup>
      </>
    );
  }
  return (
    <ResourceForm
      config={config}
      object={object}
      onSaved={(saved) => (!object && typeof saved.webhook_key === 'string' && saved.webhook_key && saved.webhook_key !== ENCRYPTED ? setCreated(saved) : open(saved))}
    />
  );
}
