-- AWX's HostMetric: one row per host name ever automated by a job (lowercased, as AWX records it),
-- written at the end of each job with its host summaries (src/ansible/host-summaries.ts). A DELETE
-- through the API only marks it deleted; the next job automating the name revives it. See
-- docs/host-metrics.md.
CREATE TABLE host_metrics (
  id bigserial PRIMARY KEY,
  hostname varchar(512) NOT NULL UNIQUE,
  first_automation timestamptz NOT NULL DEFAULT now(),
  last_automation timestamptz NOT NULL,
  last_deleted timestamptz,
  automated_counter bigint NOT NULL DEFAULT 0,
  deleted_counter integer NOT NULL DEFAULT 0,
  deleted boolean NOT NULL DEFAULT false,
  -- AWX declares it and never fills it in (24.6.1): kept for its clients, always null here too.
  used_in_inventories integer
);
CREATE INDEX host_metrics_first_automation ON host_metrics (first_automation);
CREATE INDEX host_metrics_last_automation ON host_metrics (last_automation);
CREATE INDEX host_metrics_last_deleted ON host_metrics (last_deleted);

-- AWX's HostMetricSummaryMonthly: per month, the hosts first automated, those deleted and the
-- running count of hosts consumed, computed from host_metrics (src/resources/host-metrics/monthly-summary.ts).
CREATE TABLE host_metric_summary_monthly (
  id serial PRIMARY KEY,
  date date NOT NULL UNIQUE,
  license_consumed bigint NOT NULL DEFAULT 0,
  license_capacity bigint NOT NULL DEFAULT 0,
  hosts_added integer NOT NULL DEFAULT 0,
  hosts_deleted integer NOT NULL DEFAULT 0,
  indirectly_managed_hosts integer NOT NULL DEFAULT 0
);
