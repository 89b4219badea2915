/**
 * A CSV cell. Text that a spreadsheet would run as a formula (=, +, -, @, tab, carriage return
 * first) is prefixed with an apostrophe: the values come from clients and from hosts.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Lines of cells joined as RFC 4180 asks (CRLF after every line). */
export const csvText = (lines: readonly (readonly unknown[])[]): string => lines.map((cells) => cells.map(csvCell).join(',')).join('\r\n') + '\r\n';
