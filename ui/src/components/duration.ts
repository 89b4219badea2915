/** A duration in seconds as people read it: "36 s", "2 min 5 s", "1 h 3 min" (AWX shows elapsed so). */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600);
  const min = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h) return min ? `${h} h ${min} min` : `${h} h`;
  if (min) return s ? `${min} min ${s} s` : `${min} min`;
  return `${s} s`;
}
