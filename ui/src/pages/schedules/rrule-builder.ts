/**
 * The repeat a schedule's form builds, as the rrule text the API takes
 * ("DTSTART;TZID=Europe/Paris:20250106T090000 RRULE:FREQ=WEEKLY;INTERVAL=1;BYDAY=MO,FR"), and back
 * when a stored rule is one the builder can show.
 */
export type Frequency = 'none' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';
export type Ends = 'never' | 'after' | 'on';

export interface Repeat {
  /** Wall-clock start in the zone: YYYY-MM-DD and HH:MM. */
  date: string;
  time: string;
  timezone: string;
  frequency: Frequency;
  interval: number;
  /** Weekly: MO..SU. */
  weekdays: string[];
  /** Monthly and yearly: on a day of the month, or on "the first Monday". */
  by: 'monthday' | 'setpos';
  monthDay: number;
  setPos: number;
  setPosDay: string;
  /** Yearly: 1..12. */
  month: number;
  ends: Ends;
  count: number;
  /** Ends on: YYYY-MM-DD (through the end of that day in the zone). */
  until: string;
}

export const WEEKDAYS: [code: string, label: string][] = [
  ['MO', 'Monday'], ['TU', 'Tuesday'], ['WE', 'Wednesday'], ['TH', 'Thursday'], ['FR', 'Friday'], ['SA', 'Saturday'], ['SU', 'Sunday'],
];
/** What "the first …" may name beyond one weekday. */
export const SETPOS_DAYS: [code: string, label: string][] = [
  ...WEEKDAYS,
  ['MO,TU,WE,TH,FR,SA,SU', 'Day'],
  ['MO,TU,WE,TH,FR', 'Weekday'],
  ['SA,SU', 'Weekend day'],
];
export const SETPOS: [number, string][] = [[1, 'First'], [2, 'Second'], [3, 'Third'], [4, 'Fourth'], [-1, 'Last']];
export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const FREQ: Record<Exclude<Frequency, 'none'>, string> = { minute: 'MINUTELY', hour: 'HOURLY', day: 'DAILY', week: 'WEEKLY', month: 'MONTHLY', year: 'YEARLY' };

const pad = (n: number) => String(n).padStart(2, '0');

export function defaultRepeat(now = new Date(), timezone = 'UTC'): Repeat {
  const next = new Date(now.getTime() + 60 * 60 * 1000);
  return {
    date: `${next.getFullYear()}-${pad(next.getMonth() + 1)}-${pad(next.getDate())}`,
    time: `${pad(next.getHours())}:00`,
    timezone,
    frequency: 'none',
    interval: 1,
    weekdays: [],
    by: 'monthday',
    monthDay: next.getDate(),
    setPos: 1,
    setPosDay: 'MO',
    month: next.getMonth() + 1,
    ends: 'never',
    count: 1,
    until: '',
  };
}

const stamp = (date: string, time: string) => `${date.replace(/-/g, '')}T${time.replace(/:/g, '').padEnd(6, '0')}`;

export function buildRrule(r: Repeat): string {
  const start = `DTSTART;TZID=${r.timezone}:${stamp(r.date, r.time)}`;
  if (r.frequency === 'none') return `${start} RRULE:FREQ=MINUTELY;INTERVAL=1;COUNT=1`;
  const parts = [`FREQ=${FREQ[r.frequency]}`, `INTERVAL=${r.interval}`];
  if (r.frequency === 'week' && r.weekdays.length) parts.push(`BYDAY=${WEEKDAYS.map(([c]) => c).filter((c) => r.weekdays.includes(c)).join(',')}`);
  if (r.frequency === 'year') parts.push(`BYMONTH=${r.month}`);
  if (r.frequency === 'month' || r.frequency === 'year') {
    if (r.by === 'monthday') parts.push(`BYMONTHDAY=${r.monthDay}`);
    else parts.push(`BYSETPOS=${r.setPos}`, `BYDAY=${r.setPosDay}`);
  }
  if (r.ends === 'after') parts.push(`COUNT=${r.count}`);
  if (r.ends === 'on' && r.until) parts.push(`UNTIL=${stamp(r.until, '23:59:59')}`);
  return `${start} RRULE:${parts.join(';')}`;
}

const FREQ_BACK = Object.fromEntries(Object.entries(FREQ).map(([k, v]) => [v, k as Frequency]));
const KNOWN = new Set(['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTH', 'BYMONTHDAY', 'BYSETPOS', 'COUNT', 'UNTIL']);

/** The builder's view of a stored rule; null when the rule says more than the builder can (edited as text then). */
export function parseRepeat(text: string): Repeat | null {
  const m = /^DTSTART(?:;TZID=([^:\s]+))?:(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)\s+RRULE:(\S+)$/.exec(text.trim());
  if (!m) return null;
  const [, zone, y, mo, d, h, mi, s, z, body] = m;
  if (!zone && !z) return null;
  if (s !== '00') return null;
  const rule = Object.fromEntries(body.split(';').filter(Boolean).map((p) => p.split('=') as [string, string]));
  if (Object.keys(rule).some((k) => !KNOWN.has(k))) return null;
  const repeat: Repeat = { ...defaultRepeat(), date: `${y}-${mo}-${d}`, time: `${h}:${mi}`, timezone: zone ?? 'UTC', monthDay: Number(d), month: Number(mo) };
  repeat.interval = Number(rule.INTERVAL ?? 1);
  if (rule.FREQ === 'MINUTELY' && rule.COUNT === '1' && repeat.interval === 1 && !rule.UNTIL && Object.keys(rule).length === 3) return { ...repeat, frequency: 'none' };
  const frequency = FREQ_BACK[rule.FREQ];
  if (!frequency) return null;
  repeat.frequency = frequency;
  if (rule.BYDAY && !rule.BYSETPOS) {
    if (frequency !== 'week') return null;
    repeat.weekdays = rule.BYDAY.split(',');
  }
  if (rule.BYMONTH) {
    if (frequency !== 'year' || rule.BYMONTH.includes(',')) return null;
    repeat.month = Number(rule.BYMONTH);
  }
  if (rule.BYMONTHDAY) {
    if ((frequency !== 'month' && frequency !== 'year') || !/^\d+$/.test(rule.BYMONTHDAY)) return null;
    repeat.by = 'monthday';
    repeat.monthDay = Number(rule.BYMONTHDAY);
  }
  if (rule.BYSETPOS) {
    if ((frequency !== 'month' && frequency !== 'year') || !rule.BYDAY || !SETPOS.some(([n]) => String(n) === rule.BYSETPOS) || !SETPOS_DAYS.some(([c]) => c === rule.BYDAY)) return null;
    repeat.by = 'setpos';
    repeat.setPos = Number(rule.BYSETPOS);
    repeat.setPosDay = rule.BYDAY;
  }
  if (frequency === 'year' && !rule.BYMONTH) return null;
  if (rule.COUNT) {
    repeat.ends = 'after';
    repeat.count = Number(rule.COUNT);
  } else if (rule.UNTIL) {
    const u = /^(\d{4})(\d{2})(\d{2})T235959$/.exec(rule.UNTIL);
    if (!u) return null;
    repeat.ends = 'on';
    repeat.until = `${u[1]}-${u[2]}-${u[3]}`;
  }
  return repeat;
}
