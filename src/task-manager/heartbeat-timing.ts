import type { Settings } from '../config/settings/settings.ts';

/**
 * AWX's heartbeat settings: a node records itself every CLUSTER_NODE_HEARTBEAT_PERIOD seconds and
 * is lost once silent for CLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE periods (Instance.is_lost).
 */
export function heartbeatTiming(settings: Pick<Settings, 'get'>): { periodMs: number; graceSeconds: number } {
  const period = settings.get('CLUSTER_NODE_HEARTBEAT_PERIOD');
  const tolerance = settings.get('CLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE');
  return { periodMs: period * 1000, graceSeconds: period * tolerance };
}
