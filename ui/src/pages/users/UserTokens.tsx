import { useState } from 'react';
import { Link } from 'react-router';
import { Button, EmptyState, EmptyStateBody, Modal, ModalBody, ModalFooter, ModalHeader, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { TrashIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { http, withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { useOptions, usePage } from '../../hooks/api-hooks';
import { formatDate } from '../../components/cells';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { CreateTokenModal } from './CreateTokenModal';

type Token = ResourceObject<'tokens'>;
const tokenName = (token: Token) => token.description || `Token #${token.id}`;

/**
 * A user's OAuth2 tokens (AWX's user Tokens tab): each with its application or "Personal access
 * token", scope, expiry and last use; Create for the user himself (the API makes tokens only for
 * the caller), Delete for whoever may revoke the token.
 */
export default function UserTokens({ object }: { object: ResourceObject<'users'> }) {
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Token | null>(null);
  const [error, setError] = useState<unknown>(null);
  const page = usePage<Token>(object.related?.tokens ? withQuery(object.related.tokens, { page_size: 200, order_by: '-created' }) : undefined);
  const createUrl = object.related?.personal_tokens;
  const options = useOptions(createUrl);
  const tokens = page.data?.results ?? [];

  const remove = async (token: Token) => {
    setError(null);
    try {
      await http.delete(token.url);
      setDeleting(null);
      await queryClient.invalidateQueries();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          {options.data?.actions?.POST && createUrl && (
            <ToolbarItem>
              <Button variant="primary" onClick={() => setCreating(true)}>Create token</Button>
            </ToolbarItem>
          )}
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert error={page.error} />
      {page.isPending ? (
        <Loading />
      ) : tokens.length === 0 ? (
        <EmptyState titleText="No tokens" headingLevel="h2">
          <EmptyStateBody>A token lets a script or the awx CLI act as {object.username} without a password. Only {object.username} may create one.</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label={`Tokens of ${object.username}`} variant="compact">
          <Thead>
            <Tr>
              <Th>Description</Th>
              <Th>Application</Th>
              <Th>Scope</Th>
              <Th>Expires</Th>
              <Th>Last used</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {tokens.map((token) => {
              const summary = token.summary_fields?.application;
              const application = typeof summary === 'object' && summary !== null && 'id' in summary && 'name' in summary ? { id: Number(summary.id), name: String(summary.name) } : null;
              return (
                <Tr key={token.id}>
                  <Td dataLabel="Description">{token.description || '–'}</Td>
                  <Td dataLabel="Application">{application ? <Link to={`/applications/${application.id}`}>{application.name}</Link> : 'Personal access token'}</Td>
                  <Td dataLabel="Scope">{token.scope}</Td>
                  <Td dataLabel="Expires">{formatDate(token.expires)}</Td>
                  <Td dataLabel="Last used">{formatDate(token.last_used)}</Td>
                  <Td isActionCell>
                    {token.summary_fields?.user_capabilities?.delete && (
                      <Button variant="plain" icon={<TrashIcon />} aria-label={`Delete ${tokenName(token)}`} onClick={() => setDeleting(token)} />
                    )}
                  </Td>
                </Tr>
              );
            })}
          </Tbody>
        </Table>
      )}
      {creating && createUrl && <CreateTokenModal url={createUrl} onClose={() => setCreating(false)} />}
      <Modal isOpen={!!deleting} onClose={() => setDeleting(null)} variant="small" aria-labelledby="delete-token-title">
        <ModalHeader title={`Delete ${deleting ? tokenName(deleting) : ''}?`} labelId="delete-token-title" titleIconVariant="warning" />
        <ModalBody>
          Requests sending this token are refused from now on.
          <ErrorAlert error={error} />
        </ModalBody>
        <ModalFooter>
          <Button variant="danger" onClick={() => deleting && void remove(deleting)}>Delete</Button>
          <Button variant="link" onClick={() => setDeleting(null)}>Cancel</Button>
        </ModalFooter>
      </Modal>
    </>
  );
}
