/**
 * A schedule's rrule text, checked as AWX checks it: "DTSTART;TZID=<zone>:<local time>" (or
 * "DTSTART:<UTC time>Z") followed by one or more RRULE lines and optionally EXRULE and EXDATE lines
 * (AWX refuses EXDATE; here it removes the dates it names). Problems are answered as AWX words them, all at once.
 */
import { Frequency, RRule, type Options } from './rrule-lib.ts';
import { isKnownZone, utcToWall, wallToUtc } from './zone-time.ts';

export interface ParsedRrule {
  /** The zone of DTSTART ('UTC' for a Z time). */
  zone: string;
  /** DTSTART as a floating wall-clock time. */
  start: Date;
  rules: Partial<Options>[];
  exrules: Partial<Options>[];
  /** Times EXDATE lines remove, as wall-clock times of DTSTART's zone (ms). */
  exdates: number[];
}

const STAMP = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})$/;

/** "20260308T023000" as a floating Date; null when it is no valid date. */
export function parseStamp(text: string): Date | null {
  const m = STAMP.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60 ? date : null;
}

/** Problems of one RRULE or EXRULE line beyond what AWX's regular expressions catch. */
function ruleProblems(line: string): string[] {
  const upper = line.toUpperCase();
  const problems: string[] = [];
  if (!upper.includes('INTERVAL')) problems.push(`INTERVAL required in rrule: ${line}`);
  else if (upper.includes('SECONDLY')) problems.push(`SECONDLY is not supported: ${line}`);
  if (/BYDAY[:=][^;]*?[+-]?[0-9]+[A-Z]{2}/.test(upper)) problems.push(`BYDAY with numeric prefix not supported: ${line}`);
  if (upper.includes('BYSECOND')) problems.push(`BYSECOND is not supported: ${line}`);
  if (upper.includes('BYEASTER')) problems.push(`BYEASTER is not supported: ${line}`);
  if (upper.includes('COUNT') && upper.includes('UNTIL')) problems.push(`RRULE may not contain both COUNT and UNTIL: ${line}`);
  const count = /COUNT=(\d+)/.exec(upper);
  if (count && Number(count[1]) > 999) problems.push(`COUNT > 999 is unsupported: ${line}`);
  return problems;
}

/** The options of one rule's body; UNTIL is read as the DTSTART zone's wall clock unless it ends in Z (AWX's coerce_naive_until). */
function ruleOptions(body: string, untilToWall: (utc: Date) => Date): Partial<Options> {
  const untilMatch = /(?:^|;)UNTIL=(\d{8}T\d{6})(Z?)/i.exec(body);
  const rest = body.split(';').filter((part) => part && !/^UNTIL=/i.test(part)).join(';');
  const options = RRule.parseString(rest);
  if (options.freq === undefined || options.freq === null) throw new Error('FREQ is required');
  if (options.freq === Frequency.SECONDLY) throw new Error('SECONDLY is not supported');
  if (untilMatch) {
    const until = parseStamp(untilMatch[1]);
    if (!until) throw new Error(`invalid UNTIL: ${untilMatch[1]}`);
    options.until = untilMatch[2] ? untilToWall(until) : until;
  }
  return options;
}

/** The rrule parsed, or every problem found (AWX's messages). */
export function parseRrule(text: string): { rrule: ParsedRrule } | { problems: string[] } {
  const problems: string[] = [];
  const lower = text.toLowerCase();
  const starts = [...text.matchAll(/DTSTART(;[^:\s]+)?:[0-9]+T[0-9]+Z?/g)];
  if (!starts.length) problems.push('Valid DTSTART required in rrule. Value should start with: DTSTART:YYYYMMDDTHHMMSSZ');
  if (/DTSTART:[0-9]+T[0-9]+(\s|$)/.test(text)) problems.push('DTSTART cannot be a naive datetime.  Specify ;TZINFO= or YYYYMMDDTHHMMSSZZ.');
  if (starts.length > 1) problems.push('Multiple DTSTART is not supported.');
  if (!lower.includes('rrule:')) problems.push('One or more rule required in rrule.');
  if (lower.includes('rdate:')) return { problems: ['RDATE not allowed in rrule.'] };
  const lines = text.trim().split(/\s+/).filter(Boolean);
  for (const line of lines.filter((l) => /^(RRULE|EXRULE):/i.test(l))) problems.push(...ruleProblems(line));
  if (problems.length) return { problems };
  try {
    return { rrule: buildRrule(lines) };
  } catch (err) {
    return { problems: [`rrule parsing failed validation: ${err instanceof Error ? err.message : String(err)}`] };
  }
}

function buildRrule(lines: string[]): ParsedRrule {
  let zone = '';
  let start: Date | null = null;
  const rules: string[] = [];
  const exrules: string[] = [];
  const exdates: Array<{ zone: string; stamps: string[] }> = [];
  for (const line of lines) {
    const dtstart = /^DTSTART(?:;TZID=([^:]+))?:(\d{8}T\d{6})(Z?)$/i.exec(line);
    if (dtstart) {
      zone = dtstart[3] ? 'UTC' : (dtstart[1] ?? '');
      if (!zone || !isKnownZone(zone)) throw new Error('A valid TZID must be provided (e.g., America/New_York)');
      start = parseStamp(dtstart[2]);
      if (!start) throw new Error(`invalid DTSTART: ${dtstart[2]}`);
      if (dtstart[3]) start = utcToWall(start, zone);
      continue;
    }
    const exdate = /^EXDATE(?:;TZID=([^:]+))?:(\d{8}T\d{6}Z?(?:,\d{8}T\d{6}Z?)*)$/i.exec(line);
    if (exdate) {
      exdates.push({ zone: exdate[1] ?? '', stamps: exdate[2].split(',') });
      continue;
    }
    const rule = /^(RRULE|EXRULE):(.+)$/i.exec(line);
    if (!rule) throw new Error(`unsupported line: ${line}`);
    (rule[1].toUpperCase() === 'RRULE' ? rules : exrules).push(rule[2]);
  }
  if (!start) throw new Error('DTSTART is malformed');
  const parse = (body: string) => ruleOptions(body, (utc) => utcToWall(utc, zone));
  return { zone, start, rules: rules.map(parse), exrules: exrules.map(parse), exdates: exdates.flatMap((e) => e.stamps.map((stamp) => exdateWall(stamp, e.zone, zone))) };
}

/** An EXDATE value as a wall-clock time of the schedule's zone: given in UTC (Z), in its own TZID, or else in DTSTART's zone. */
function exdateWall(stamp: string, ownZone: string, zone: string): number {
  const time = parseStamp(stamp.replace(/Z$/i, ''));
  if (!time) throw new Error(`invalid EXDATE: ${stamp}`);
  if (/Z$/i.test(stamp)) return utcToWall(time, zone).getTime();
  if (!ownZone || ownZone === zone) return time.getTime();
  if (!isKnownZone(ownZone)) throw new Error(`unknown EXDATE TZID: ${ownZone}`);
  const instant = wallToUtc(time, ownZone);
  if (!instant) throw new Error(`EXDATE ${stamp} does not exist in ${ownZone}`);
  return utcToWall(instant, zone).getTime();
}
