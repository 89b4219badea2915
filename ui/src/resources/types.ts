import type { ComponentType, ReactNode } from 'react';
import type { AnyResource, ResourceKey, ResourceObject } from '../api/types';

/** A list column; `render` takes objects of the listed resource `O`. */
export interface Column<O = AnyResource> {
  field: string;
  label: string;
  /** order_by key; the field itself when true. */
  sort?: string | true;
  render?: (object: O) => ReactNode;
  /** Hidden in a narrow window. */
  wide?: boolean;
}

/** One "Filter by" entry of a list: the query key it writes and how its value is asked. */
export interface ListFilter {
  /** The API's filter key, with its lookup: name__icontains, id, started__gte. */
  key: string;
  label: string;
  /** A choice field of OPTIONS whose choices the value is picked from (status, type). */
  choicesOf?: string;
  /** Choices of the console's own wording, for a field whose OPTIONS labels read worse. */
  choices?: [value: string, label: string][];
  input?: 'text' | 'number' | 'datetime';
}

type Lazy<P> = () => Promise<{ default: ComponentType<P> }>;

/** A resource's own page, tab or actions, given objects of that resource `O`. */
export interface Tab<O = AnyResource> {
  key: string;
  label: string;
  /** A related list of the object (a key of `related`), shown with the list of this resource key. */
  related?: string;
  resource?: string;
  component?: Lazy<{ object: O }>;
}

export interface ResourceConfig<O = AnyResource, K extends string = string> {
  /** URL segment, in the console as in the API (/api/v2/<key>/). */
  key: K;
  label: string;
  singular: string;
  columns: Column<O>[];
  /** Tabs of the detail page after Details. */
  tabs?: Tab<O>[];
  /** Writable fields the generic form leaves out (set elsewhere: a survey, a graph). */
  hiddenFormFields?: string[];
  /** Shown under the generic details (a template's credentials, labels and instance groups). */
  detailExtra?: Lazy<{ object: O }>;
  /** Fields shown in the generic details (default: every field of GET except internals). */
  detailFields?: string[];
  /** Whether the console offers Add for this resource at all (the API still decides). */
  creatable?: boolean;
  /** False when the resource's own actions delete it, with a confirmation of their own (a tenant's typed name). */
  deletable?: boolean;
  /** A page of its own instead of the generic one. */
  detailPage?: Lazy<{ object: O; config: ResourceConfig }>;
  formPage?: Lazy<{ object?: O; config: ResourceConfig }>;
  /** Buttons on a row and on the detail page (launch, sync, test...). */
  actions?: Lazy<{ object: O; variant: 'row' | 'detail' }>;
  /** Shown above the list on the resource's own list page (summaries, filters of its own). */
  listHeader?: () => Promise<{ default: ComponentType }>;
  /** The query parameter the search box sets (default `search`): a tenant is found by its organization's fields. */
  searchKey?: string;
  /** What "Filter by" offers (default: every filterable field); the advanced search reaches the rest. */
  filters?: ListFilter[];
  /** A few more details of a row, shown when it is expanded. */
  expandedRow?: (object: O) => ReactNode;
  /** Actions on the rows a user selects (their check boxes appear only with these). */
  bulkActions?: Lazy<{ selected: O[]; onDone: () => void }>;
  /** What an empty list tells the user to do. */
  emptyHint?: string;
}

/**
 * A list of objects that are no resource of their own (a webhook's deliveries), for ResourceList:
 * it hands the columns only the objects the list's URL answers, which are `O`.
 */
export const listOf = <O>(config: ResourceConfig<O>): ResourceConfig => config as unknown as ResourceConfig;

/** A resource's entry as written in the registry: its pages, tabs and actions take its own objects. */
export type ResourceDefinition<K extends ResourceKey> = ResourceConfig<ResourceObject<K>, K>;

/**
 * A resource's entry as the generic pages read it. The generic detail and form pages fetch
 * /api/v2/<key>/<id>/ for the entry of <key> and hand the answer only to that entry's pages, so the
 * objects they pass are of the type the entry was written for.
 */
export const defineResource = <K extends ResourceKey>(definition: ResourceConfig<NoInfer<ResourceObject<K>>, K>): ResourceConfig => definition as unknown as ResourceConfig;
