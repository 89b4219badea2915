/**
 * The records shipped to a log aggregator, in the shape of AWX's LogstashFormatter
 * (awx/main/utils/formatters.py): @timestamp, message, host, type, level, logger_name, tower_uuid,
 * cluster_host_id, then the logger's own fields.
 */
import os from 'node:os';
import type { AggregatorLogger, LogLevel } from '../config/settings/categories/logging.ts';

export const LEVEL_RANK: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARNING: 30, ERROR: 40, CRITICAL: 50 };

/** A logger's name as AWX writes it in logger_name: `awx`, or `awx.analytics.<kind>`. */
export const loggerName = (logger: AggregatorLogger): string => (logger === 'awx' ? 'awx' : `awx.analytics.${logger}`);

export interface RecordOrigin {
  /** LOG_AGGREGATOR_TYPE. */
  type: string | null;
  /** LOG_AGGREGATOR_TOWER_UUID (left out when blank, as AWX). */
  towerUuid: string;
  /** The node's name (AWX's CLUSTER_HOST_ID). */
  clusterHostId: string;
}

export interface LogEntry {
  logger: AggregatorLogger;
  level: LogLevel;
  message: string;
  /** The logger's own fields (an activity stream entry, a job event, facts). */
  fields?: Record<string, unknown>;
  at?: Date;
}

export function formatRecord(origin: RecordOrigin, entry: LogEntry): Record<string, unknown> {
  return {
    '@timestamp': (entry.at ?? new Date()).toISOString(),
    message: entry.message,
    host: os.hostname(),
    type: origin.type,
    level: entry.level,
    logger_name: loggerName(entry.logger),
    ...(origin.towerUuid && { tower_uuid: origin.towerUuid }),
    ...(origin.clusterHostId && { cluster_host_id: origin.clusterHostId }),
    ...entry.fields,
  };
}

/** A stored job event as the job_events logger sends it: its columns, event_data included, the job and host by id as AWX's job event model. */
export function jobEventFields(jobId: number, row: Record<string, unknown>): Record<string, unknown> {
  const { host_id, ...rest } = row;
  return { ...rest, job: jobId, host: host_id ?? null };
}

/**
 * The system_tracking records of one host's facts: one record holding them all, or with
 * LOG_AGGREGATOR_INDIVIDUAL_FACTS one per top-level fact. AWX drops the two fact keys whose type
 * varies between hosts (ansible_python_version, ansible_python.version_info) for Elasticsearch.
 */
export function factRecords(
  host: { inventoryId: number; hostName: string; jobId: number | null; modified: string; facts: Record<string, unknown> }, individually: boolean,
): Record<string, unknown>[] {
  const facts = { ...host.facts };
  delete facts.ansible_python_version;
  if (facts.ansible_python && typeof facts.ansible_python === 'object') {
    const { version_info: _, ...python } = facts.ansible_python as Record<string, unknown>;
    facts.ansible_python = python;
  }
  const common = { ansible_facts_modified: host.modified, inventory_id: host.inventoryId, host_name: host.hostName, job_id: host.jobId };
  if (!individually) return [{ ansible_facts: facts, ...common }];
  return Object.entries(facts).map(([key, value]) => ({ ansible_facts: { [key]: value }, ...common }));
}
