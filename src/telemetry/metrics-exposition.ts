/**
 * What GET /api/v2/metrics/ answers, from prom-client registries: the text exposition, or the JSON
 * AWX's PrometheusJSONRenderer makes of it (AWX 24.6.1 awx/api/renderers.py).
 */
import { Registry } from 'prom-client';
import { processRegistry, type ServiceMetrics } from './metrics.ts';

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * This node's own metrics (the service's and the process's), each sample labelled with the node's
 * name; only the families named in `only` when it names any.
 */
export function nodeRegistry(metrics: ServiceMetrics, nodeName: string, only: readonly string[]): Registry {
  const registry = new Registry();
  for (const metric of [...metrics.registry.getMetricsAsArray(), ...processRegistry().getMetricsAsArray()]) {
    if (!only.length || only.includes(metricName(metric))) registry.registerMetric(metric as never);
  }
  registry.setDefaultLabels({ node: nodeName });
  return registry;
}

const metricName = (metric: unknown): string => (metric as { name: string }).name;

/** The registries one after another in the text exposition format. */
export async function exposition(registries: readonly Registry[]): Promise<string> {
  const parts = await Promise.all(registries.map((r) => r.metrics()));
  return parts.filter((text) => text.trim() !== '').join('\n');
}

interface Sample {
  labels: Record<string, string>;
  value: number;
  sample_type?: 'bucket' | 'sum' | 'count';
}
export interface Family {
  help_text: string;
  type: string;
  samples: Sample[];
}

/**
 * As AWX answers ?format=json: each family by name with its help, type and samples; a counter's
 * family named without `_total`, a histogram's samples with their sample_type, label values as text.
 */
export async function asJson(registries: readonly Registry[]): Promise<Record<string, Family>> {
  const families: Record<string, Family> = {};
  for (const registry of registries) {
    for (const metric of await registry.getMetricsAsJSON()) {
      // prom-client's typings call the type an enum; it is the type's name.
      const type = String(metric.type);
      const name = type === 'counter' ? metric.name.replace(/_total$/, '') : metric.name;
      families[name] = {
        help_text: metric.help,
        type,
        samples: metric.values.map((value) => {
          const sample: Sample = { labels: Object.fromEntries(Object.entries(value.labels).map(([k, v]) => [k, String(v)])), value: value.value };
          const suffix = type === 'histogram' ? (value as { metricName?: string }).metricName?.match(/_(bucket|sum|count)$/)?.[1] : undefined;
          if (suffix) sample.sample_type = suffix as Sample['sample_type'];
          return sample;
        }),
      };
    }
  }
  return families;
}
