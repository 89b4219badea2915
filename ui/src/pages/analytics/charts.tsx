import { countTicks } from '../dashboard/JobsChart';

const AXIS = 'var(--pf-t--global--border--color--default)';
const TEXT = 'var(--pf-t--global--text--color--subtle)';

export const COLORS = {
  successful: 'var(--pf-t--global--color--status--success--default)',
  failed: 'var(--pf-t--global--color--status--danger--default)',
  other: 'var(--pf-t--global--color--nonstatus--gray--default)',
  info: 'var(--pf-t--global--color--status--info--default)',
};

export interface Series {
  name: string;
  color: string;
}

/** A bar over the time axis: its bucket's date and one value per series, stacked. */
export interface Step {
  date: string;
  values: number[];
}

const shortDate = (iso: string) => new Date(`${iso}T00:00:00Z`).toLocaleDateString([], { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * Stacked bars per bucket over a date axis, with a value axis (whole counts, or 0–100 for a
 * percentage). The SVG is one image to screen readers, summed up by `summary`; the numbers are in
 * the figure's table.
 */
export function TimeBars({ steps, series, summary, axis, percent = false }: { steps: Step[]; series: Series[]; summary: string; axis: string; percent?: boolean }) {
  const ticks = percent ? [0, 25, 50, 75, 100] : countTicks(Math.max(0, ...steps.map((s) => s.values.reduce((a, b) => a + b, 0))));
  const top = ticks[ticks.length - 1];
  const left = 40;
  const width = 480;
  const height = 160;
  const bar = (width - left) / Math.max(1, steps.length);
  const y = (value: number) => height - (value / top) * (height - 8);
  return (
    <figure style={{ margin: 0 }}>
      <svg viewBox={`0 0 ${width} ${height + 24}`} role="img" aria-label={summary} style={{ width: '100%', height: 'auto' }}>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={left} x2={width} y1={y(tick)} y2={y(tick)} stroke={AXIS} strokeDasharray={tick ? '2 4' : undefined} />
            <text x={left - 6} y={y(tick) + 4} textAnchor="end" fontSize={11} fill={TEXT}>{percent ? `${tick}%` : tick}</text>
          </g>
        ))}
        <text transform={`translate(10 ${height / 2}) rotate(-90)`} textAnchor="middle" fontSize={11} fill={TEXT}>{axis}</text>
        {steps.map((step, i) => {
          let base = 0;
          return (
            <g key={step.date}>
              <title>{`${shortDate(step.date)}: ${series.map((s, k) => `${step.values[k]}${percent ? '%' : ''} ${s.name}`).join(', ')}`}</title>
              <rect x={left + i * bar} y={0} width={bar} height={height} fill="transparent" />
              {series.map((s, k) => {
                const value = step.values[k];
                if (!value) return null;
                const rect = <rect key={s.name} x={left + i * bar + bar * 0.15} y={y(base + value)} width={bar * 0.7} height={y(base) - y(base + value)} fill={s.color} />;
                base += value;
                return rect;
              })}
            </g>
          );
        })}
        {steps.map((step, i) => (i % Math.ceil(steps.length / 6) === 0) && (
          <text key={step.date} x={left + i * bar + bar / 2} y={height + 16} textAnchor="middle" fontSize={11} fill={TEXT}>{shortDate(step.date)}</text>
        ))}
      </svg>
      {series.length > 1 && (
        <figcaption aria-hidden style={{ display: 'flex', gap: '1rem', fontSize: '0.875rem' }}>
          {series.map((s) => (
            <span key={s.name}><span style={{ display: 'inline-block', width: 10, height: 10, background: s.color, marginRight: 4 }} />{s.name}</span>
          ))}
        </figcaption>
      )}
    </figure>
  );
}

/** One horizontal bar per row (a template, a host, an inventory), longest first as given. */
export function RowBars({ rows, summary, color = COLORS.info, percent = false }: { rows: { label: string; value: number }[]; summary: string; color?: string; percent?: boolean }) {
  const top = percent ? 100 : Math.max(1, ...rows.map((r) => r.value));
  const labelWidth = 150;
  const width = 480;
  const row = 26;
  const plot = width - labelWidth - 50;
  return (
    <svg viewBox={`0 0 ${width} ${rows.length * row}`} role="img" aria-label={summary} style={{ width: '100%', height: 'auto' }}>
      {rows.map((r, i) => (
        <g key={`${r.label}-${i}`}>
          <title>{`${r.label}: ${r.value}${percent ? '%' : ''}`}</title>
          <text x={labelWidth - 8} y={i * row + 16} textAnchor="end" fontSize={12} fill={TEXT}>{r.label.length > 22 ? `${r.label.slice(0, 21)}…` : r.label}</text>
          <rect x={labelWidth} y={i * row + 4} width={Math.max(1, (r.value / top) * plot)} height={row - 8} fill={color} />
          <text x={labelWidth + (r.value / top) * plot + 6} y={i * row + 16} fontSize={12} fill={TEXT}>{`${r.value}${percent ? '%' : ''}`}</text>
        </g>
      ))}
    </svg>
  );
}
