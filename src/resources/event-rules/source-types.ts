/** Where an event rule receives from: each signs its deliveries its own way (src/eda/sources.ts). */
export const SOURCE_TYPES = [
  ['webhook_generic', 'Generic webhook'],
  ['webhook_codehost_a', 'Code host A'],
  ['webhook_codehost_b', 'Code host B'],
  ['monitoring_alerts', 'Monitoring alerts'],
  ['incident_mgmt', 'Incident management'],
  ['metrics_saas', 'Metrics service'],
  ['cloud_monitoring', 'Cloud monitoring'],
] as const;

export type SourceType = (typeof SOURCE_TYPES)[number][0];
