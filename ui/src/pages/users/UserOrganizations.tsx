import { Link } from 'react-router';
import { EmptyState, EmptyStateBody, Label } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { withQuery } from '../../api/client';
import type { ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';

const ALL = { page_size: 200, order_by: 'name' };

/** The organizations a user belongs to, with the role held there (admin or member), as AWX's user Organizations tab. */
export default function UserOrganizations({ object }: { object: ResourceObject<'users'> }) {
  const members = usePage<ResourceObject<'organizations'>>(object.related?.organizations ? withQuery(object.related.organizations, ALL) : undefined);
  const admins = usePage<ResourceObject<'organizations'>>(object.related?.admin_of_organizations ? withQuery(object.related.admin_of_organizations, ALL) : undefined);
  if (members.isPending || admins.isPending) return <Loading />;
  const adminIds = new Set((admins.data?.results ?? []).map((o) => o.id));
  // An admin is a member too (admin_role implies member_role), so the members' list holds both.
  const byId = new Map([...(members.data?.results ?? []), ...(admins.data?.results ?? [])].map((o) => [o.id, o]));
  const organizations = [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <>
      <ErrorAlert error={members.error ?? admins.error} />
      {organizations.length === 0 ? (
        <EmptyState titleText="No organizations" headingLevel="h2">
          <EmptyStateBody>{object.username} belongs to no organization. An organization's admin adds members on its Users tab.</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label={`Organizations of ${object.username}`} variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              <Th>Description</Th>
              <Th>Role</Th>
            </Tr>
          </Thead>
          <Tbody>
            {organizations.map((org) => (
              <Tr key={org.id}>
                <Td dataLabel="Name"><Link to={`/organizations/${org.id}`}>{org.name}</Link></Td>
                <Td dataLabel="Description">{org.description || '–'}</Td>
                <Td dataLabel="Role">{adminIds.has(org.id) ? <Label color="blue">Admin</Label> : <Label>Member</Label>}</Td>
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
    </>
  );
}
