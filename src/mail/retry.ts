// What a failed attempt means, without I/O. A mail is retried on the configured schedule (the
// last delay repeats, with up to 10% jitter so a recovering server is not met by every mail at
// once) until it is three days old: an SMTP outage shorter than that delays mail and loses none.
// Only an answer that refuses this very mail is final: a permanent (5xx) reply to its recipient
// or its content. A 5xx at sign-in (wrong credentials) or at MAIL FROM is the operator's to fix,
// so the mail waits for it.

export const GIVE_UP_AFTER_MS = 3 * 86_400_000;

interface SmtpError {
  responseCode?: number;
  command?: string;
}

export function isPermanentRefusal(err: unknown): boolean {
  const e = (err ?? {}) as SmtpError;
  const code = e.responseCode ?? 0;
  return code >= 500 && code < 600 && (e.command === "RCPT TO" || e.command === "DATA");
}

/** When to try again after the attempt numbered `attempts` failed, or undefined to give up. */
export function nextAttemptAt(
  attempts: number,
  delaysMs: readonly number[],
  createdAt: Date,
  now: Date,
  random: () => number = Math.random,
): Date | undefined {
  const base = delaysMs[Math.min(attempts, delaysMs.length) - 1] ?? delaysMs.at(-1) ?? 60_000;
  const at = new Date(now.getTime() + Math.round(base * (1 + 0.1 * random())));
  return at.getTime() - createdAt.getTime() > GIVE_UP_AFTER_MS ? undefined : at;
}

/** The error as the row keeps it: one line, bounded. */
export function errorText(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown })?.code;
  const text = typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message;
  return text.replace(/\s+/g, " ").slice(0, 500);
}
