/**
 * A service request follows the run it launched to its end (docs/service-catalog.md#statuses):
 * in the transaction that stores the run's final status, its running request becomes successful,
 * failed (failed or error) or canceled, and the item's "finished" notifications are queued.
 */
import type { ServiceRequestRow } from '../../db/tables.ts';
import type { RunFollower } from '../../runs/run-kind.ts';
import { notifyRequest } from './request-notifications.ts';

const REQUEST_STATUS_OF_RUN: Record<string, string> = { successful: 'successful', failed: 'failed', error: 'failed', canceled: 'canceled' };

export const serviceRequestFollower: RunFollower = {
  name: 'service requests',
  async finished(tx, run) {
    const status = REQUEST_STATUS_OF_RUN[run.status];
    if (!status) return;
    const ended = await tx.query<ServiceRequestRow>(
      `UPDATE service_requests SET status = $2, modified = now() WHERE unified_job_id = $1 AND status = 'running' RETURNING *`,
      [run.id, status],
    );
    for (const request of ended) await notifyRequest(tx, request, 'finished');
  },
};
