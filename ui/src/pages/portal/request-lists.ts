import { defineResource } from '../../resources/types';
import type { ListFilter } from '../../resources/types';
import type { Page } from '../../api/client';
import {
  justificationColumn,
  outcomeColumn,
  requestCreatedColumn,
  requestIdColumn,
  requestItemColumn,
  requestRefetch,
  requestRunColumn,
  requestStatusColumn,
  requesterColumn,
  type ServiceRequest,
} from './request-cells';

const filters: ListFilter[] = [{ key: 'status', label: 'Status', choicesOf: 'status' }, { key: 'catalog_item', label: 'Item id', input: 'number' }];
const actions = () => import('./DecisionActions');

/** Requests, read again while one of them goes on (as the list's rows say). */
export const followRequests = (page: Page<unknown> | undefined) => requestRefetch(page?.results as ServiceRequest[] | undefined);

/** The caller's own requests: what happened to each, and its run. */
export const MY_REQUESTS = defineResource({
  key: 'service_requests',
  label: 'Requests',
  singular: 'Request',
  creatable: false,
  columns: [requestIdColumn, requestItemColumn, requestStatusColumn, requestRunColumn, requestCreatedColumn, outcomeColumn],
  filters,
  actions,
  emptyHint: 'Request an item of the Catalog: it appears here and follows its run.',
});

/** The pending requests the caller may decide. */
export const APPROVALS = defineResource({
  key: 'service_requests',
  label: 'Approvals',
  singular: 'Request',
  creatable: false,
  columns: [requestIdColumn, requestItemColumn, requesterColumn, justificationColumn, requestCreatedColumn],
  filters: filters.slice(1),
  actions,
  emptyHint: 'Nothing waits for your decision.',
});

/** Every request the caller may see (an item's, an organization's). */
export const requestColumns = [requestIdColumn, requestItemColumn, requesterColumn, requestStatusColumn, requestRunColumn, requestCreatedColumn, outcomeColumn];
