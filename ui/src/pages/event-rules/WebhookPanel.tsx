import { useState } from 'react';
import { Button, ClipboardCopy, Flex, FlexItem, FormGroup, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import { EyeIcon, EyeSlashIcon, SyncAltIcon } from '@patternfly/react-icons';
import { ErrorAlert } from '../../components/ErrorAlert';
import { absoluteUrl, readKey, rotateKey, signingHint, type EventRule } from './event-rules-api';

/** Copies without the browser's complaint where the clipboard is not offered (plain HTTP): the text stays selectable. */
const copy = (_event: unknown, text: unknown) => {
  void navigator.clipboard?.writeText(String(text)).catch(() => undefined);
};

function Copyable({ id, label, text }: { id: string; label: string; text: string }) {
  return (
    <ClipboardCopy key={text} isReadOnly inputId={id} textAriaLabel={label} copyAriaLabel={`Copy ${label}`} hoverTip="Copy" clickTip="Copied" onCopy={copy}>
      {text}
    </ClipboardCopy>
  );
}

/**
 * Where senders deliver and what they sign with: the receiver URL to copy and, for the organization's
 * admins, the key (read on request, never kept in the page's data) and its rotation.
 */
export function WebhookPanel({ rule }: { rule: EventRule }) {
  const [key, setKey] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState(false);
  const mayManage = !!rule.summary_fields?.user_capabilities?.edit;

  const run = async (call: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    try {
      setKey(await call());
      setConfirming(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <FormGroup label="Webhook URL" fieldId="event-rule-webhook-url">
        <Copyable id="event-rule-webhook-url" label="Webhook URL" text={absoluteUrl(rule.webhook_url)} />
      </FormGroup>
      <p className="drover-subtle" style={{ margin: '0.5rem 0' }}>{signingHint(rule.source_type)}</p>
      {mayManage ? (
        <>
          {key !== null && (
            <FormGroup label="Webhook key" fieldId="event-rule-webhook-key">
              <Copyable id="event-rule-webhook-key" label="Webhook key" text={key} />
            </FormGroup>
          )}
          <Flex spaceItems={{ default: 'spaceItemsSm' }} style={{ marginTop: '0.5rem' }}>
            <FlexItem>
              {key === null ? (
                <Button variant="secondary" icon={<EyeIcon />} isLoading={busy && !confirming} isDisabled={busy} onClick={() => run(() => readKey(rule))}>Show key</Button>
              ) : (
                <Button variant="secondary" icon={<EyeSlashIcon />} onClick={() => setKey(null)}>Hide key</Button>
              )}
            </FlexItem>
            <FlexItem>
              <Button variant="secondary" isDanger icon={<SyncAltIcon />} isDisabled={busy} onClick={() => { setError(null); setConfirming(true); }}>Rotate key</Button>
            </FlexItem>
          </Flex>
          {!confirming && <ErrorAlert error={error} title="The key could not be read" />}
        </>
      ) : (
        <p className="drover-subtle">The key is shown to the organization's admins only.</p>
      )}
      <Modal isOpen={confirming} onClose={() => setConfirming(false)} variant="small" aria-labelledby="rotate-title">
        <ModalHeader title="Rotate the key?" labelId="rotate-title" titleIconVariant="warning" />
        <ModalBody>
          A new key replaces the current one at once: deliveries signed with the current key are refused from now on, until the sender uses the new key.
          <ErrorAlert error={error} title="Not rotated" />
        </ModalBody>
        <ModalFooter>
          <Button variant="danger" isLoading={busy} isDisabled={busy} onClick={() => run(() => rotateKey(rule))}>Rotate</Button>
          <Button variant="link" onClick={() => setConfirming(false)}>Cancel</Button>
        </ModalFooter>
      </Modal>
    </>
  );
}
