-- The W3C trace context of the launch that made a run (docs/observability.md#the-spans): the run's
-- span continues that trace on whichever node runs it. Empty when tracing was off.
ALTER TABLE unified_jobs ADD COLUMN launch_traceparent text NOT NULL DEFAULT '';
