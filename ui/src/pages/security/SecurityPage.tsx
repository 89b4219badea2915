import { useState } from 'react';
import {
  Alert,
  Button,
  Content,
  EmptyState,
  EmptyStateBody,
  Flex,
  FlexItem,
  PageSection,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { KeyIcon, PencilAltIcon, TrashIcon } from '@patternfly/react-icons';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { http, withQuery } from '../../api/client';
import { passkeysAvailable, registerPasskey, type Passkey } from '../../api/passkeys';
import type { ApiBody, Me } from '../../api/types';
import { formatDate } from '../../components/cells';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { useMe, usePage } from '../../hooks/api-hooks';
import { DeletePasskeyModal } from './DeletePasskeyModal';
import { PasskeyLabelModal } from './PasskeyLabelModal';

/** The API keeps at most this many passkeys per user (docs/webauthn.md#registering-a-passkey); the list asks for them all. */
const PAGE_SIZE = 100;

/**
 * /security: the signed-in user's passkeys (docs/webauthn.md): register one (named first), rename,
 * delete. Only the caller's own, though system administrators and auditors see everyone's in the API.
 */
export default function SecurityPage() {
  const me = useMe();
  return (
    <>
      <PageSection>
        <Title headingLevel="h1">Security</Title>
      </PageSection>
      <PageSection>
        <ErrorAlert error={me.error} />
        {me.data ? <Passkeys me={me.data} /> : !me.error && <Loading />}
      </PageSection>
    </>
  );
}

type Dialog = { kind: 'register' } | { kind: 'rename'; passkey: Passkey } | { kind: 'delete'; passkey: Passkey } | null;

function Passkeys({ me }: { me: Me }) {
  const page = usePage<Passkey>(withQuery('/api/v2/webauthn/credentials/', { user: me.id, order_by: 'id', page_size: PAGE_SIZE }));
  const [dialog, setDialog] = useState<Dialog>(null);
  const passkeys = page.data?.results ?? [];
  const supported = passkeysAvailable();
  const close = () => setDialog(null);

  const rename = (passkey: Passkey) => async (label: string) => {
    await http.patch(passkey.url, { label } satisfies ApiBody<'/api/v2/webauthn/credentials/{id}/', 'patch'>);
  };

  return (
    <>
      <Title headingLevel="h2">Passkeys</Title>
      <Content component="p">
        A passkey signs you in without a password (<em>Sign in with a passkey</em> on the login page), with this device's screen lock, a
        phone or a security key. {me.second_factor_required && 'An organization you belong to also asks for one after your password.'}
      </Content>
      {!supported && (
        <Alert variant="warning" isInline title="This browser cannot register passkeys here">
          Passkeys need a browser with WebAuthn, on an HTTPS address (or http://localhost).
        </Alert>
      )}
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <Button variant="primary" icon={<KeyIcon />} onClick={() => setDialog({ kind: 'register' })} isDisabled={!supported}>Register a passkey</Button>
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert error={page.error} />
      {page.isPending ? (
        <Loading />
      ) : passkeys.length === 0 ? (
        <EmptyState titleText="No passkeys" headingLevel="h3">
          <EmptyStateBody>Register one to sign in without your password, on this device or with a security key.</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label="Your passkeys" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              <Th>Kind</Th>
              <Th>Created</Th>
              <Th>Last used</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {passkeys.map((passkey) => (
              <Tr key={passkey.id}>
                <Td dataLabel="Name">{passkey.label}</Td>
                <Td dataLabel="Kind">{passkey.backup_eligible ? 'Synced passkey' : 'On one device'}</Td>
                <Td dataLabel="Created">{formatDate(passkey.created)}</Td>
                <Td dataLabel="Last used">{passkey.last_used ? formatDate(passkey.last_used) : 'Never'}</Td>
                <Td isActionCell>
                  <Flex spaceItems={{ default: 'spaceItemsNone' }} flexWrap={{ default: 'nowrap' }}>
                    <FlexItem><Button variant="plain" icon={<PencilAltIcon />} aria-label={`Rename ${passkey.label}`} onClick={() => setDialog({ kind: 'rename', passkey })} /></FlexItem>
                    <FlexItem><Button variant="plain" icon={<TrashIcon />} aria-label={`Delete ${passkey.label}`} onClick={() => setDialog({ kind: 'delete', passkey })} /></FlexItem>
                  </Flex>
                </Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
      {dialog?.kind === 'register' && (
        <PasskeyLabelModal
          title="Register a passkey"
          action="Register"
          failure="Passkey not registered"
          placeholder={`Passkey ${passkeys.length + 1}`}
          help={'Something to tell it by later: "Work laptop", "Phone". Then your browser asks for the passkey.'}
          save={registerPasskey}
          onClose={close}
        />
      )}
      {dialog?.kind === 'rename' && (
        <PasskeyLabelModal
          title={`Rename ${dialog.passkey.label}`}
          action="Save"
          failure="Passkey not renamed"
          initial={dialog.passkey.label}
          help="Up to 100 characters."
          save={rename(dialog.passkey)}
          onClose={close}
        />
      )}
      {dialog?.kind === 'delete' && <DeletePasskeyModal passkey={dialog.passkey} last={passkeys.length === 1} me={me} onClose={close} />}
    </>
  );
}
