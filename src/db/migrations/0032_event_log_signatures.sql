-- The signature a delivery was accepted with (its SHA-256), so that a copy of the delivery is refused
-- whatever unsigned header changes (src/eda/intake.ts); null for refused deliveries and token sources.
ALTER TABLE event_logs ADD COLUMN IF NOT EXISTS signature_digest text;
CREATE UNIQUE INDEX IF NOT EXISTS event_logs_signature ON event_logs (event_rule_id, signature_digest)
  WHERE signature_digest IS NOT NULL AND status <> 'signature_failed';
-- Refused deliveries of the last minute, counted per rule and per address (src/eda/refusal-throttle.ts).
CREATE INDEX IF NOT EXISTS event_logs_refused_rule ON event_logs (event_rule_id, created) WHERE status = 'signature_failed';
CREATE INDEX IF NOT EXISTS event_logs_refused_address ON event_logs (source_ip, created) WHERE status = 'signature_failed';
