import { enumKeys } from '../../api/enums';
import type { ApiAnswer } from '../../api/types';

/** Counts by status, [time, count] pairs (the client reads the pairs as plain arrays). */
type Series = Record<keyof ApiAnswer<'/api/v2/dashboard/graphs/jobs/'>['jobs'], number[][]>;

const COLORS: Record<keyof Series, string> = { successful: 'var(--pf-t--global--color--status--success--default)', failed: 'var(--pf-t--global--color--status--danger--default)', error: 'var(--pf-t--global--color--status--warning--default)', canceled: 'var(--pf-t--global--color--nonstatus--gray--default)' };
const ORDER = enumKeys(COLORS);

/** Finished runs per step as stacked bars, each bar titled with its counts (readable by screen readers too). */
export function JobsChart({ jobs, hourly }: { jobs: Series; hourly: boolean }) {
  const steps = jobs.successful.map(([at], i) => ({ at, counts: ORDER.map((s) => jobs[s][i]?.[1] ?? 0) }));
  const max = Math.max(1, ...steps.map((s) => s.counts.reduce((a, b) => a + b, 0)));
  const width = 720;
  const height = 200;
  const bar = width / Math.max(1, steps.length);
  const label = (at: number) => {
    const date = new Date(at * 1000);
    return hourly ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
  };
  const total = steps.reduce((sum, s) => sum + s.counts.reduce((a, b) => a + b, 0), 0);
  return (
    <figure style={{ margin: 0 }}>
      <svg viewBox={`0 0 ${width} ${height + 24}`} role="img" aria-label={`Job runs: ${total} finished in this period`} style={{ width: '100%', height: 'auto' }}>
        <line x1={0} x2={width} y1={height} y2={height} stroke="var(--pf-t--global--border--color--default)" />
        {steps.map((step, i) => {
          let y = height;
          const title = `${label(step.at)}: ${ORDER.map((s, k) => `${step.counts[k]} ${s}`).join(', ')}`;
          return (
            <g key={step.at} data-step={step.at}>
              <title>{title}</title>
              <rect x={i * bar} y={0} width={bar} height={height} fill="transparent" />
              {ORDER.map((status, k) => {
                const h = (step.counts[k] / max) * (height - 8);
                y -= h;
                return h > 0 ? <rect key={status} x={i * bar + bar * 0.15} y={y} width={bar * 0.7} height={h} fill={COLORS[status]} /> : null;
              })}
              {(i % Math.ceil(steps.length / 8) === 0) && (
                <text x={i === 0 ? 0 : i * bar + bar / 2} y={height + 16} textAnchor={i === 0 ? "start" : "middle"} fontSize={11} fill="var(--pf-t--global--text--color--subtle)">{label(step.at)}</text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption style={{ display: 'flex', gap: '1rem', flexWrap: 'wrap', fontSize: '0.875rem' }}>
        {ORDER.map((status) => (
          <span key={status}>
            <span aria-hidden style={{ display: 'inline-block', width: 10, height: 10, background: COLORS[status], marginRight: 4 }} />
            {status} ({jobs[status].reduce((sum, [, n]) => sum + n, 0)})
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
