import { Link } from 'react-router';
import { Label } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import type { Column } from '../../resources/types';
import { CatalogIcon } from './CatalogIcon';
import './portal.css';

type Item = ResourceObject<'service_catalog_items'>;
interface Named { id?: number; name?: string }
const summary = (item: Item, field: string) => (item.summary_fields as Record<string, Named | undefined>)[field];

/** A catalog item's list columns (catalog administration). */
export const catalogItemColumns: Column<Item>[] = [
  {
    field: 'name',
    label: 'Name',
    sort: true,
    render: (item) => (
      <span className="drover-catalog-card-title">
        <CatalogIcon icon={item.icon} size={16} />
        <Link to={`/service_catalog_items/${item.id}`}>{item.name}</Link>
      </span>
    ),
  },
  { field: 'category', label: 'Category', sort: true, render: (item) => item.category || '–' },
  {
    field: 'job_template',
    label: 'Template',
    wide: true,
    render: (item) => {
      const workflow = summary(item, 'workflow_job_template');
      const job = summary(item, 'job_template');
      const template = workflow?.id ? { ...workflow, type: 'workflow_job_template' } : job?.id ? { ...job, type: 'job_template' } : undefined;
      return template ? <Link to={`/${template.type}s/${template.id}`}>{template.name ?? `#${template.id}`}</Link> : '–';
    },
  },
  { field: 'requires_approval', label: 'Approval', render: (item) => (item.requires_approval ? <Label isCompact color="orange">{summary(item, 'approver_team')?.name ?? 'Organization admins'}</Label> : 'None') },
  { field: 'enabled', label: 'Enabled', sort: true, render: (item) => (item.enabled ? 'Yes' : 'No') },
  { field: 'organization', label: 'Organization', sort: 'organization__name', wide: true, render: (item) => summary(item, 'organization')?.name ?? '–' },
];
