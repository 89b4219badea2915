import { useState } from 'react';
import { Link } from 'react-router';
import { EmptyState, EmptyStateBody, Pagination, SearchInput, Switch, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { http, withQuery, type Page } from '../../api/client';
import type { ApiBody, ResourceObject } from '../../api/types';
import { usePage } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';

const EVENTS: [string, string][] = [['started', 'Start'], ['success', 'Success'], ['error', 'Failure'], ['approvals', 'Approval']];

/** What notifies: a template, or a catalog item (its requests' events). */
type Notifier = Pick<ResourceObject<'job_templates' | 'workflow_job_templates' | 'service_catalog_items'>, 'url' | 'related' | 'summary_fields'>;

/** A template's notification templates on its runs' events. */
export default function TemplateNotifications({ object }: { object: ResourceObject<'job_templates' | 'workflow_job_templates'> }) {
  return <NotificationSwitches object={object} events={EVENTS} />;
}

/**
 * Which notification templates the object notifies on each of `events` (its
 * notification_templates_<event> lists), switched on and off in place.
 */
export function NotificationSwitches({ object, events: offered }: { object: Notifier; events: [event: string, label: string][] }) {
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [pageNumber, setPageNumber] = useState(1);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const events = offered.filter(([event]) => object.related?.[`notification_templates_${event}`]);
  const canEdit = !!object.summary_fields?.user_capabilities?.edit;
  const listUrl = withQuery('/api/v2/notification_templates/', { page: pageNumber, page_size: 20, search, order_by: 'name' });
  const templates = usePage(listUrl);
  const attached = useQuery({
    queryKey: ['attached-notifications', object.url],
    queryFn: async () => {
      const out: Record<string, Set<number>> = {};
      for (const [event] of events) {
        const page = await http.get<Page<ResourceObject<'notification_templates'>>>(withQuery(object.related[`notification_templates_${event}`], { page_size: 200 }));
        out[event] = new Set(page.results.map((t) => t.id));
      }
      return out;
    },
  });

  const toggle = async (event: string, templateId: number, on: boolean) => {
    setBusy(`${event}-${templateId}`);
    setError(null);
    try {
      await http.post(object.related[`notification_templates_${event}`], (on ? { id: templateId } : { id: templateId, disassociate: true }) satisfies ApiBody<'/api/v2/job_templates/{id}/notification_templates_started/', 'post'>);
      await queryClient.invalidateQueries({ queryKey: ['attached-notifications', object.url] });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(null);
    }
  };

  const rows = templates.data?.results ?? [];
  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput aria-label="Search notification templates" placeholder="Search" value={search} onChange={(_e, v) => { setSearch(v); setPageNumber(1); }} onClear={() => setSearch('')} />
          </ToolbarItem>
          <ToolbarItem variant="pagination" align={{ default: 'alignEnd' }}>
            <Pagination itemCount={templates.data?.count ?? 0} page={pageNumber} perPage={20} perPageOptions={[]} onSetPage={(_e, p) => setPageNumber(p)} isCompact />
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert error={error ?? templates.error ?? attached.error} title="Not changed" />
      {templates.isPending || attached.isPending ? (
        <Loading />
      ) : rows.length === 0 ? (
        <EmptyState titleText="No notification templates" headingLevel="h2">
          <EmptyStateBody>
            {search ? 'Change the search.' : <>Add one under <Link to="/notification_templates">Notifications</Link> first.</>}
          </EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label="Notification templates" variant="compact">
          <Thead>
            <Tr>
              <Th>Name</Th>
              <Th className="drover-hide-narrow">Type</Th>
              {events.map(([event, label]) => <Th key={event}>{label}</Th>)}
            </Tr>
          </Thead>
          <Tbody>
            {rows.map((t) => (
              <Tr key={t.id} data-template={String(t.name)}>
                <Td dataLabel="Name"><Link to={`/notification_templates/${t.id}`}>{String(t.name)}</Link></Td>
                <Td dataLabel="Type" className="drover-hide-narrow">{String(t.notification_type)}</Td>
                {events.map(([event, label]) => (
                  <Td key={event} dataLabel={label}>
                    <Switch
                      id={`notify-${event}-${t.id}`}
                      aria-label={`${label} notifications with ${String(t.name)}`}
                      isChecked={!!attached.data?.[event]?.has(t.id)}
                      isDisabled={!canEdit || busy === `${event}-${t.id}`}
                      onChange={(_e, on) => toggle(event, t.id, on)}
                    />
                  </Td>
                ))}
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
    </>
  );
}
