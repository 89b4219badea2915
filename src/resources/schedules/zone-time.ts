/**
 * Wall-clock times in IANA time zones, with the platform's own zone data (Intl). A schedule's
 * rule is computed over "floating" wall-clock times (a Date whose UTC fields are the local
 * fields), then each is placed in its zone here.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(zone, found);
  }
  return found;
}

/** Whether the platform knows the zone. */
export function isKnownZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** Every zone name the service knows, sorted (UTC included). */
export function knownZones(): string[] {
  return [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])].sort();
}

/** The wall-clock time at an instant, as a floating Date. */
export function utcToWall(instant: Date, zone: string): Date {
  if (zone === 'UTC') return new Date(Math.floor(instant.getTime() / 1000) * 1000);
  const parts = Object.fromEntries(formatter(zone).formatToParts(instant).map((p) => [p.type, p.value]));
  return new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second)));
}

const offsetAt = (instantMs: number, zone: string) => utcToWall(new Date(instantMs), zone).getTime() - Math.floor(instantMs / 1000) * 1000;

const DAY = 86_400_000;

/**
 * The instant a wall-clock time names in a zone: null when it does not exist (skipped by a DST
 * change), the earlier of the two when it happens twice (as dateutil's default fold).
 */
export function wallToUtc(wall: Date, zone: string): Date | null {
  if (zone === 'UTC') return wall;
  const ms = wall.getTime();
  const offsets = new Set([offsetAt(ms - DAY, zone), offsetAt(ms, zone), offsetAt(ms + DAY, zone)]);
  const candidates = [...offsets].map((o) => ms - o).filter((instant) => offsetAt(instant, zone) === ms - instant);
  return candidates.length ? new Date(Math.min(...candidates)) : null;
}

/** A floating Date as local ISO text without offset (2026-03-08T02:30:00). */
export const floatingIso = (wall: Date) => wall.toISOString().slice(0, 19);

/** An instant as ISO text with the zone's offset (2026-03-08T03:30:00-04:00), as AWX's preview shows local times. */
export function zonedIso(instant: Date, zone: string): string {
  const wall = utcToWall(instant, zone);
  const offset = Math.round((wall.getTime() - instant.getTime()) / 60_000);
  if (offset === 0 && zone === 'UTC') return `${floatingIso(wall)}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${floatingIso(wall)}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
