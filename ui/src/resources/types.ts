import type { ComponentType, ReactNode } from 'react';
import type { AnyResource } from '../api/types';

export interface Column {
  field: string;
  label: string;
  /** order_by key; the field itself when true. */
  sort?: string | true;
  render?: (object: AnyResource) => ReactNode;
  /** Hidden in a narrow window. */
  wide?: boolean;
}

export interface Tab {
  key: string;
  label: string;
  /** A related list of the object (a key of `related`), shown with the list of this resource key. */
  related?: string;
  resource?: string;
  component?: () => Promise<{ default: ComponentType<{ object: AnyResource }> }>;
}

export interface ResourceConfig {
  /** URL segment, in the console as in the API (/api/v2/<key>/). */
  key: string;
  label: string;
  singular: string;
  columns: Column[];
  /** Tabs of the detail page after Details. */
  tabs?: Tab[];
  /** Writable fields the generic form leaves out (set elsewhere: a survey, a graph). */
  hiddenFormFields?: string[];
  /** Fields shown in the generic details (default: every field of GET except internals). */
  detailFields?: string[];
  /** Whether the console offers Add for this resource at all (the API still decides). */
  creatable?: boolean;
  /** A page of its own instead of the generic one. */
  detailPage?: () => Promise<{ default: ComponentType<{ object: AnyResource; config: ResourceConfig }> }>;
  formPage?: () => Promise<{ default: ComponentType<{ object?: AnyResource; config: ResourceConfig }> }>;
  /** Buttons on a row and on the detail page (launch, sync, test...). */
  actions?: () => Promise<{ default: ComponentType<{ object: AnyResource; variant: 'row' | 'detail' }> }>;
  /** Shown above the list on the resource's own list page (summaries, filters of its own). */
  listHeader?: () => Promise<{ default: ComponentType }>;
  /** What an empty list tells the user to do. */
  emptyHint?: string;
}
