import type { FastifyReply } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../api/errors.ts';

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
export const stripAnsi = (text: string) => text.replace(ANSI, '');

export const STDOUT_FORMATS = ['json', 'txt', 'ansi', 'html', 'txt_download', 'ansi_download'] as const;
type Format = (typeof STDOUT_FORMATS)[number];

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function lineBound(value: unknown, name: string): number | null {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ApiError(400, { detail: `${name} must be a non-negative integer.` });
  return n;
}

/**
 * A run's output assembled from its events, in the format asked for (AWX's stdout view);
 * start_line / end_line pick a range of lines without reading the rest. Output over
 * `maxDisplayBytes` is only given by the download formats.
 */
export async function sendStdout(
  db: Queryable,
  reply: FastifyReply,
  job: { id: number; name?: string; kind: string },
  query: Record<string, unknown>,
  maxDisplayBytes = Infinity,
) {
  const format = (query.format ?? 'json') as Format;
  if (!STDOUT_FORMATS.includes(format)) {
    throw new ApiError(400, { detail: `Unsupported format "${String(format)}". Use one of ${STDOUT_FORMATS.join(', ')}.` });
  }
  const start = lineBound(query.start_line, 'start_line') ?? 0;
  const end = lineBound(query.end_line, 'end_line');
  const params: unknown[] = [job.id, start];
  if (end !== null) params.push(end);
  const [{ absolute_end, total_bytes }] = await db.query<{ absolute_end: number; total_bytes: number }>(
    `SELECT coalesce(max(end_line), 0)::int AS absolute_end, coalesce(sum(octet_length(stdout) + 1), 0)::float8 AS total_bytes
     FROM unified_job_events WHERE unified_job_id = $1`,
    [job.id],
  );
  // STDOUT_MAX_BYTES_DISPLAY: larger output is only downloaded, as AWX answers.
  if (total_bytes > maxDisplayBytes && !format.endsWith('_download')) {
    const message = `Standard Output too large to display (${total_bytes} bytes), only download supported for sizes over ${maxDisplayBytes} bytes.`;
    if (format === 'json') return { range: { start: 0, end: 1, absolute_end: 1 }, content: message };
    return reply.type('text/plain; charset=utf-8').send(message);
  }
  const rows = await db.query<{ stdout: string }>(
    `SELECT stdout FROM unified_job_events WHERE unified_job_id = $1 AND end_line > start_line AND end_line > $2 ${end !== null ? 'AND start_line < $3' : ''}
     ORDER BY start_line, counter`,
    params,
  );
  const raw = rows.map((r) => r.stdout.replace(/\r\n/g, '\n')).join('\n') + (rows.length ? '\n' : '');
  const plain = stripAnsi(raw);
  const filename = `${job.kind}_${job.id}.txt`;
  switch (format) {
    case 'json':
      return { range: { start, end: end ?? absolute_end, absolute_end }, content: plain };
    case 'txt':
      return reply.type('text/plain; charset=utf-8').send(plain);
    case 'ansi':
      return reply.type('text/plain; charset=utf-8').send(raw);
    case 'txt_download':
    case 'ansi_download':
      reply.header('Content-Disposition', `attachment; filename="${filename}"`);
      return reply.type('text/plain; charset=utf-8').send(format === 'txt_download' ? plain : raw);
    case 'html':
      return reply
        .type('text/html; charset=utf-8')
        .send(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escapeHtml(job.name ?? filename)}</title></head><body><pre>${escapeHtml(plain)}</pre></body></html>`);
  }
}
