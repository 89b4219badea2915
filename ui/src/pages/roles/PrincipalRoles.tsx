import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button, EmptyState, EmptyStateBody, Pagination, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { TrashIcon } from '@patternfly/react-icons';
import { useQueryClient } from '@tanstack/react-query';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { GrantFromPrincipalModal } from './GrantFromPrincipalModal';
import { RevokeModal } from './RevokeModal';
import { revokeRole, type PrincipalKind } from './role-grants';

/** Console path of the object a role belongs to, by the role's content type. */
const RESOURCE_PATHS: Record<string, string> = {
  organization: 'organizations',
  team: 'teams',
  credential: 'credentials',
  project: 'projects',
  inventory: 'inventories',
  job_template: 'job_templates',
  workflow_job_template: 'workflow_job_templates',
  instance_group: 'instance_groups',
  notification_template: 'notification_templates',
  execution_environment: 'execution_environments',
};

/** The roles a user or a team holds, with grant and revoke for those who may change the holder. */
export default function PrincipalRoles({ object }: { object: ResourceObject<'users' | 'teams'> }) {
  const kind: PrincipalKind = object.type === 'team' ? 'teams' : 'users';
  const [params, setParams] = useSearchParams();
  const queryClient = useQueryClient();
  const [granting, setGranting] = useState(false);
  const [revoking, setRevoking] = useState<ResourceObject<'roles'> | null>(null);
  const pageNumber = Number(params.get('page') ?? 1);
  const url = object.related?.roles ? withQuery(object.related.roles, { page: pageNumber, page_size: 20, order_by: 'id' }) : undefined;
  const page = usePage<ResourceObject<'roles'>>(url);
  const canEdit = !!object.summary_fields?.user_capabilities?.edit;
  const holder = String(object.username ?? object.name);
  const refresh = () => queryClient.invalidateQueries({ queryKey: [url] });
  const roles = page.data?.results ?? [];

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          {canEdit && (
            <ToolbarItem>
              <Button variant="primary" onClick={() => setGranting(true)}>Add roles</Button>
            </ToolbarItem>
          )}
          <ToolbarItem variant="pagination" align={{ default: 'alignEnd' }}>
            <Pagination itemCount={page.data?.count ?? 0} page={pageNumber} perPage={20} perPageOptions={[]} onSetPage={(_e, p) => setParams({ page: String(p) })} isCompact />
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert error={page.error} />
      {page.isPending ? (
        <Loading />
      ) : roles.length === 0 ? (
        <EmptyState titleText="No roles" headingLevel="h2">
          <EmptyStateBody>{canEdit ? `Give ${holder} roles with Add roles.` : `${holder} holds no roles you can see.`}</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label={`Roles of ${holder}`} variant="compact">
          <Thead>
            <Tr>
              <Th>Object</Th>
              <Th>Type</Th>
              <Th>Role</Th>
              <Th screenReaderText="Actions" />
            </Tr>
          </Thead>
          <Tbody>
            {roles.map((role) => {
              const s = role.summary_fields as { resource_name?: string; resource_type?: string; resource_type_display_name?: string; resource_id?: number };
              const path = s.resource_type ? RESOURCE_PATHS[s.resource_type] : undefined;
              const name = s.resource_name ?? (role.singleton_name ? 'System' : '–');
              return (
                <Tr key={role.id} data-role={role.id}>
                  <Td dataLabel="Object">{path && s.resource_id ? <Link to={`/${path}/${s.resource_id}`}>{name}</Link> : name}</Td>
                  <Td dataLabel="Type">{s.resource_type_display_name ?? (role.singleton_name ? 'System' : '–')}</Td>
                  <Td dataLabel="Role">{String(role.name)}</Td>
                  <Td isActionCell>
                    {canEdit && (
                      <Button variant="plain" icon={<TrashIcon />} aria-label={`Remove ${String(role.name)} of ${name}`} onClick={() => setRevoking(role)} />
                    )}
                  </Td>
                </Tr>
              );
            })}
          </Tbody>
        </Table>
      )}
      {canEdit && <GrantFromPrincipalModal kind={kind} principal={object} isOpen={granting} onClose={() => setGranting(false)} onGranted={refresh} />}
      <RevokeModal
        what={revoking ? { role: String(revoking.name), holder, object: String((revoking.summary_fields as { resource_name?: string }).resource_name ?? 'the system') } : null}
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          await revokeRole(kind, object.id, revoking!.id);
          await refresh();
        }}
      />
    </>
  );
}
