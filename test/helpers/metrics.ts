import assert from 'node:assert/strict';
import parsePrometheusTextFormat, { type ParsedFamily, type ParsedSample } from 'parse-prometheus-text-format';
import type { Credentials, TestApp } from './app.ts';

/** The families of one scrape of GET /api/v2/metrics/ (query: its query string), parsed as Prometheus reads them, by name. */
export async function scrape(t: TestApp, query = '', as?: Credentials): Promise<Map<string, ParsedFamily>> {
  const res = await t.get(`/api/v2/metrics/${query}`, as ? { as } : {});
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return families(res.text);
}

/**
 * The families of a text exposition by name. parse-prometheus-text-format folds all the samples of
 * a histogram into one, whatever their labels: a histogram's `_bucket`, `_sum` and `_count` series
 * are read as families of their own instead, the histogram's own family keeping its help and type.
 */
export function families(text: string): Map<string, ParsedFamily> {
  const histograms = new Set([...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((m) => m[1]));
  const parsed = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'));
  const byName = new Map<string, ParsedFamily>();
  for (const family of parsed) {
    const known = byName.get(family.name);
    if (known) known.metrics.push(...family.metrics);
    else byName.set(family.name, { ...family, type: histograms.has(family.name) ? 'HISTOGRAM' : family.type, metrics: [...family.metrics] });
  }
  return byName;
}

const matches = (sample: ParsedSample, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => sample.labels?.[k] === v);

/** The samples of a family whose labels include `labels`. */
export function samples(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string> = {}): ParsedSample[] {
  const family = families.get(name);
  assert.ok(family, `no ${name} in the scrape`);
  return family.metrics.filter((sample) => matches(sample, labels));
}

/** The value of the one sample of a gauge or counter with `labels`. */
export function value(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string> = {}): number {
  const found = samples(families, name, labels);
  assert.equal(found.length, 1, `${name} ${JSON.stringify(labels)}: ${found.length} samples`);
  return Number(found[0].value);
}

/** How many observations the series of a histogram whose labels include `labels` hold together (0 before any). */
export function observations(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string> = {}): number {
  assert.equal(families.get(name)?.type, 'HISTOGRAM', `no histogram ${name} in the scrape`);
  if (!families.has(`${name}_count`)) return 0;
  return samples(families, `${name}_count`, labels).reduce((sum, sample) => sum + Number(sample.value), 0);
}
