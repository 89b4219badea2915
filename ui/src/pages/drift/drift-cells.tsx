import { Link } from 'react-router';
import type { ResourceObject } from '../../api/types';
import type { Column } from '../../resources/types';
import { StatusLabel, formatDate } from '../../components/cells';
import { CategoryLabel, SeverityLabel, categoryName } from './DriftLabels';
import './drift.css';

/** When the object was made, linked to its page. */
const createdLinkColumn = <K extends 'drift_detections' | 'drift_alerts'>(resource: K, label: string): Column<ResourceObject<K>> => ({
  field: 'created',
  label,
  sort: true,
  render: (o) => <Link to={`/${resource}/${o.id}`}>{formatDate(o.created)}</Link>,
});

/** Columns of the drift resources' lists. */
export const detectedColumn = createdLinkColumn('drift_detections', 'Detected at');
/** The fact with its category under it (one column less than a category of its own, which the list filters by). */
export const factPathColumn: Column<ResourceObject<'drift_detections'>> = {
  field: 'fact_path',
  label: 'Fact',
  sort: true,
  render: (o) => (
    <>
      <span className="drover-mono">{String(o.fact_path)}</span> <CategoryLabel category={o.category} />
    </>
  ),
};
export const severityColumn: Column<ResourceObject<'drift_detections'>> = { field: 'severity', label: 'Severity', render: (o) => <SeverityLabel severity={o.severity} /> };
export const acknowledgedColumn: Column<ResourceObject<'drift_detections'>> = {
  field: 'acknowledged',
  label: 'Acknowledged',
  wide: true,
  render: (o) => (o.acknowledged ? `By ${(o.summary_fields?.acknowledged_by as { username?: string } | undefined)?.username ?? '–'}` : 'No'),
};

export const ruleCategoriesColumn: Column<ResourceObject<'drift_alert_rules'>> = {
  field: 'categories',
  label: 'Categories',
  wide: true,
  render: (o) => (Array.isArray(o.categories) && o.categories.length ? o.categories.map(categoryName).join(', ') : 'All'),
};
export const ruleThresholdColumn: Column<ResourceObject<'drift_alert_rules'>> = {
  field: 'threshold_count',
  label: 'Threshold',
  wide: true,
  render: (o) => `${String(o.threshold_count)} at or above ${String(o.severity_min)} in ${String(o.threshold_window_minutes)} min`,
};

export const alertCreatedColumn = createdLinkColumn('drift_alerts', 'Raised');
export const notificationStatusColumn: Column<ResourceObject<'drift_alerts'>> = {
  field: 'notification_status',
  label: 'Notification',
  sort: true,
  render: (o) => (
    <>
      <StatusLabel status={o.notification_status} />
      {o.notification_status === 'failed' && o.notification_error ? <span className="drover-error-text" data-notification-error>{String(o.notification_error)}</span> : null}
    </>
  ),
};
