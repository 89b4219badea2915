import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button, EmptyState, EmptyStateBody, Label, LabelGroup, Pagination, SearchInput, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useQueryClient } from '@tanstack/react-query';
import { withQuery } from '../../api/client';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { GrantToPrincipalsModal } from './GrantToPrincipalsModal';
import { RevokeModal } from './RevokeModal';
import { revokeRole, type AccessObject } from './role-grants';

interface AccessRole {
  id: number | null;
  name: string;
  resource_name?: string;
  team_id?: number;
  team_name?: string;
  user_capabilities?: { unattach?: boolean };
}
interface AccessEntry {
  role: AccessRole;
}
interface Revoking {
  kind: 'users' | 'teams';
  principal: number;
  role: number;
  label: { role: string; holder: string; object: string };
}

/** Who holds which role on the object, with grant and revoke for those who administer it. */
export default function ObjectAccess({ object }: { object: AccessObject }) {
  const [params, setParams] = useSearchParams();
  const queryClient = useQueryClient();
  const [granting, setGranting] = useState(false);
  const [revoking, setRevoking] = useState<Revoking | null>(null);
  const listUrl = object.related?.access_list;
  const pageNumber = Number(params.get('page') ?? 1);
  const search = params.get('search') ?? '';
  const url = listUrl ? withQuery(listUrl, { page: pageNumber, page_size: 20, search, order_by: 'username' }) : undefined;
  const page = usePage(url);
  const canEdit = !!object.summary_fields?.user_capabilities?.edit;
  const objectName = String(object.name ?? object.username ?? `#${object.id}`);

  const refresh = () => queryClient.invalidateQueries({ queryKey: [url] });
  const setParam = (key: string, value: string | null) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value); else next.delete(key);
    if (key !== 'page') next.delete('page');
    setParams(next);
  };

  if (!listUrl) return <ErrorAlert error={new Error('This object has no access list.')} />;
  const users = page.data?.results ?? [];
  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput aria-label="Search users with access" placeholder="Search users" value={search} onChange={(_e, v) => setParam('search', v)} onClear={() => setParam('search', null)} />
          </ToolbarItem>
          {canEdit && (
            <ToolbarItem>
              <Button variant="primary" onClick={() => setGranting(true)}>Add roles</Button>
            </ToolbarItem>
          )}
          <ToolbarItem variant="pagination" align={{ default: 'alignEnd' }}>
            <Pagination itemCount={page.data?.count ?? 0} page={pageNumber} perPage={20} perPageOptions={[]} onSetPage={(_e, p) => setParam('page', String(p))} isCompact />
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert error={page.error} />
      {page.isPending ? (
        <Loading />
      ) : users.length === 0 ? (
        <EmptyState titleText="Nobody holds a role here" headingLevel="h2">
          <EmptyStateBody>{canEdit ? 'Give users or teams roles with Add roles.' : 'Nothing to show.'}</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label={`Access to ${objectName}`} variant="compact">
          <Thead>
            <Tr>
              <Th>User</Th>
              <Th className="drover-hide-narrow">Name</Th>
              <Th>Roles held here</Th>
              <Th className="drover-hide-narrow">Through other objects</Th>
            </Tr>
          </Thead>
          <Tbody>
            {users.map((user) => {
              const direct = (user.summary_fields?.direct_access ?? []) as AccessEntry[];
              const indirect = (user.summary_fields?.indirect_access ?? []) as AccessEntry[];
              const username = String(user.username);
              return (
                <Tr key={user.id} data-user={username}>
                  <Td dataLabel="User"><Link to={`/users/${user.id}`}>{username}</Link></Td>
                  <Td dataLabel="Name" className="drover-hide-narrow">{`${String(user.first_name ?? '')} ${String(user.last_name ?? '')}`.trim() || '–'}</Td>
                  <Td dataLabel="Roles held here">
                    <LabelGroup numLabels={6} aria-label={`Roles of ${username}`}>
                      {direct.map(({ role }) => {
                        const viaTeam = role.team_id !== undefined;
                        const text = viaTeam ? `${role.name} (team ${role.team_name})` : role.name;
                        const removable = canEdit && role.id !== null && !!role.user_capabilities?.unattach;
                        return (
                          <Label
                            key={`${role.id}-${role.team_id ?? 'own'}`}
                            color={viaTeam ? 'purple' : 'blue'}
                            onClose={removable ? () => setRevoking({
                              kind: viaTeam ? 'teams' : 'users',
                              principal: viaTeam ? role.team_id! : user.id,
                              role: role.id!,
                              label: { role: role.name, holder: viaTeam ? `team ${role.team_name}` : username, object: objectName },
                            }) : undefined}
                            closeBtnAriaLabel={`Remove ${role.name} from ${viaTeam ? `team ${role.team_name}` : username}`}
                          >
                            {text}
                          </Label>
                        );
                      })}
                    </LabelGroup>
                    {!direct.length && '–'}
                  </Td>
                  <Td dataLabel="Through other objects" className="drover-hide-narrow">
                    <LabelGroup numLabels={3} aria-label={`Inherited roles of ${username}`}>
                      {indirect.map(({ role }, i) => (
                        <Label key={`${role.id}-${i}`} color="grey" isCompact>
                          {role.resource_name ? `${role.name} of ${role.resource_name}` : role.name}
                        </Label>
                      ))}
                    </LabelGroup>
                    {!indirect.length && '–'}
                  </Td>
                </Tr>
              );
            })}
          </Tbody>
        </Table>
      )}
      {canEdit && <GrantToPrincipalsModal object={object} isOpen={granting} onClose={() => setGranting(false)} onGranted={refresh} />}
      <RevokeModal
        what={revoking?.label ?? null}
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          await revokeRole(revoking!.kind, revoking!.principal, revoking!.role);
          await refresh();
        }}
      />
    </>
  );
}
