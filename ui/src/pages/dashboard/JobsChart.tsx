import { enumKeys } from '../../api/enums';
import type { ApiAnswer } from '../../api/types';

/** Counts by status, [time, count] pairs (the client reads the pairs as plain arrays). */
type Series = Record<keyof ApiAnswer<'/api/v2/dashboard/graphs/jobs/'>['jobs'], number[][]>;

const COLORS: Record<keyof Series, string> = { successful: 'var(--pf-t--global--color--status--success--default)', failed: 'var(--pf-t--global--color--status--danger--default)', error: 'var(--pf-t--global--color--status--warning--default)', canceled: 'var(--pf-t--global--color--nonstatus--gray--default)' };
const ORDER = enumKeys(COLORS);
const AXIS = 'var(--pf-t--global--border--color--default)';
const TEXT = 'var(--pf-t--global--text--color--subtle)';

/** Round steps for the count axis: at most five ticks, whole numbers only. */
export function countTicks(max: number): number[] {
  const rough = Math.max(1, max / 4);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? rough;
  const top = Math.max(step, Math.ceil(max / step) * step);
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
}

/**
 * Finished runs per step as stacked bars over a time axis (dates, or hours for a day) and a count
 * axis, each bar titled with its counts (readable by screen readers too).
 */
export function JobsChart({ jobs, hourly }: { jobs: Series; hourly: boolean }) {
  const steps = jobs.successful.map(([at], i) => ({ at, counts: ORDER.map((s) => jobs[s][i]?.[1] ?? 0) }));
  const ticks = countTicks(Math.max(0, ...steps.map((s) => s.counts.reduce((a, b) => a + b, 0))));
  const top = ticks[ticks.length - 1];
  const left = 44;
  const width = 720;
  const plot = width - left;
  const height = 200;
  const bar = plot / Math.max(1, steps.length);
  const y = (count: number) => height - (count / top) * (height - 8);
  const label = (at: number) => {
    const date = new Date(at * 1000);
    return hourly ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : date.toLocaleDateString([], { month: 'short', day: 'numeric' });
  };
  const total = steps.reduce((sum, s) => sum + s.counts.reduce((a, b) => a + b, 0), 0);
  return (
    <figure style={{ margin: 0 }}>
      <svg viewBox={`0 0 ${width} ${height + 44}`} role="img" aria-label={`Job runs: ${total} finished in this period`} style={{ width: '100%', height: 'auto' }}>
        <g data-axis="count">
          {ticks.map((tick) => (
            <g key={tick}>
              <line x1={left} x2={width} y1={y(tick)} y2={y(tick)} stroke={AXIS} strokeDasharray={tick ? '2 4' : undefined} />
              <text x={left - 6} y={y(tick) + 4} textAnchor="end" fontSize={11} fill={TEXT}>{tick}</text>
            </g>
          ))}
          <text transform={`translate(10 ${height / 2}) rotate(-90)`} textAnchor="middle" fontSize={11} fill={TEXT}>Runs</text>
        </g>
        <line x1={left} x2={left} y1={0} y2={height} stroke={AXIS} />
        {steps.map((step, i) => {
          let base = 0;
          const title = `${label(step.at)}: ${ORDER.map((s, k) => `${step.counts[k]} ${s}`).join(', ')}`;
          return (
            <g key={step.at} data-step={step.at}>
              <title>{title}</title>
              <rect x={left + i * bar} y={0} width={bar} height={height} fill="transparent" />
              {ORDER.map((status, k) => {
                const count = step.counts[k];
                if (!count) return null;
                const rect = <rect key={status} x={left + i * bar + bar * 0.15} y={y(base + count)} width={bar * 0.7} height={y(base) - y(base + count)} fill={COLORS[status]} />;
                base += count;
                return rect;
              })}
            </g>
          );
        })}
        <g data-axis="time">
          {steps.map((step, i) => (i % Math.ceil(steps.length / 8) === 0) && (
            <text key={step.at} x={left + i * bar + bar / 2} y={height + 16} textAnchor="middle" fontSize={11} fill={TEXT}>{label(step.at)}</text>
          ))}
          <text x={left + plot / 2} y={height + 38} textAnchor="middle" fontSize={11} fill={TEXT}>{hourly ? 'Time' : 'Date'}</text>
        </g>
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
