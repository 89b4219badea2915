const MAX_EXPLANATION = 2000;

/**
 * Lines that start a message of their own. Other lines at column 0 continue the message before
 * (ansible wraps at 80 columns); indented lines (tracebacks, version details) are left out.
 */
const MESSAGE_START = /^(\[[A-Z ]+\]|ERROR!|ansible-inventory |Using |Parsed |Skipping |No config file|\S+ declined parsing )/;

function messages(log: string): string[] {
  const out: string[] = [];
  let open = false;
  for (const raw of log.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (!line.trim() || /^\s/.test(line)) {
      open = false;
      continue;
    }
    if (MESSAGE_START.test(line) || !open) out.push(line);
    else out[out.length - 1] += ` ${line}`;
    open = true;
  }
  return out;
}

/**
 * The job_explanation of a failed ansible-inventory: its exit code and the messages saying why,
 * each as one line: the plugins' "Failed to parse" warnings (with the plugin's own error) and
 * the errors; the last lines of output when there are none.
 */
export function explainFailure(code: number | null, log: string): string {
  const all = messages(log);
  const relevant = all.filter((m) => /Failed to parse|Unable to parse|^\[ERROR\]|^ERROR!/.test(m));
  const chosen = relevant.length ? relevant : all.slice(-3);
  const head = `ansible-inventory failed (exit code ${code ?? 'none'})`;
  const text = chosen.length ? `${head}: ${chosen.map((m) => m.replace(/^\[WARNING\]:\s*(\*\s*)?/, '')).join('; ')}` : `${head}.`;
  return text.length > MAX_EXPLANATION ? `${text.slice(0, MAX_EXPLANATION - 1)}…` : text;
}
