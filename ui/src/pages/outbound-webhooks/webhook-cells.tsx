import { Link } from 'react-router';
import type { ApiAnswer, ResourceObject } from '../../api/types';

type Delivery = ApiAnswer<'/api/v2/outbound_webhooks/{id}/deliveries/'>['results'][number];
import type { Column } from '../../resources/types';
import { StatusLabel, formatDate } from '../../components/cells';
import './outbound-webhooks.css';

const ErrorText = ({ error }: { error: unknown }) => (error ? <span className="drover-webhook-error" data-error>{String(error)}</span> : null);

/** The webhook's last attempt: the status its URL answered, and what went wrong. */
export const lastStatusColumn: Column<ResourceObject<'outbound_webhooks'>> = {
  field: 'last_status',
  label: 'Last answer',
  render: (o) => (o.last_sent_at ? (
    <span data-last-status={o.last_status === null ? 'none' : String(o.last_status)}>
      <StatusLabel status={o.last_error ? 'failed' : 'sent'} /> {o.last_error ? '' : `HTTP ${String(o.last_status)}`}
      <ErrorText error={o.last_error} />
    </span>
  ) : 'Never sent'),
};


/** The run a delivery is about, linked to its output. */
const runLink = (o: Delivery) => {
  const run = o.summary_fields?.run as { id?: number; name?: string } | undefined;
  if (!run?.id) return '–';
  const segment = String(o.event_type).startsWith('workflow.') ? 'workflow_jobs' : 'jobs';
  return <Link to={`/${segment}/${run.id}`}>{`${run.id} - ${run.name ?? ''}`}</Link>;
};

/** Columns of a webhook's Deliveries tab. */
export const DELIVERY_COLUMNS: Column<Delivery>[] = [
  { field: 'created', label: 'Queued', sort: true, render: (o) => formatDate(o.created) },
  { field: 'event_type', label: 'Event', render: (o) => <span className="drover-mono">{String(o.event_type)}</span> },
  { field: 'run', label: 'Run', wide: true, render: runLink },
  {
    field: 'status',
    label: 'Status',
    sort: true,
    render: (o) => (
      <>
        <StatusLabel status={o.status} />
        <ErrorText error={o.error} />
      </>
    ),
  },
  { field: 'response_status', label: 'Response', render: (o) => (o.response_status === null ? '–' : `HTTP ${String(o.response_status)}`) },
  { field: 'attempts', label: 'Tries' },
  { field: 'sent_at', label: 'Sent', wide: true, render: (o) => formatDate(o.sent_at) },
];
