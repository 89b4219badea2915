/**
 * Problems of the live output broadcast (notices of every node turned into websocket messages):
 * written to the service log and sent under the aggregator's `broadcast_websocket` logger, as AWX
 * sends its websocket broadcast's errors (awx.analytics.broadcast_websocket).
 */
import type { RunServices } from '../runs/run-services.ts';

export function reportBroadcast(services: RunServices, level: 'WARNING' | 'ERROR', message: string, fields: Record<string, unknown>): void {
  if (level === 'ERROR') services.logger.error(message);
  else services.logger.warn(message);
  if (services.logShipper.wants('broadcast_websocket', level)) services.logShipper.ship({ logger: 'broadcast_websocket', level, message, fields });
}
