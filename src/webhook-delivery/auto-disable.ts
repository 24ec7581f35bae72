// When sustained failure disables a webhook (CONTRACT 7): no successful delivery for 5 days (or
// since it was registered) and at least 10 exhausted deliveries since then. Decided without I/O;
// attempts.repository.ts reads the facts and writes the verdict.

export interface AutoDisableRule {
  /** No success for this long … */
  quietMs: number;
  /** … and at least this many exhausted deliveries since the last success. */
  exhausted: number;
}

export const DEFAULT_AUTO_DISABLE: AutoDisableRule = { quietMs: 5 * 86_400_000, exhausted: 10 };

/** The instant failures are counted from: the last success, else the registration. */
export function quietSince(hook: { createdAt: Date; lastSuccessAt: Date | null }): Date {
  return hook.lastSuccessAt ?? hook.createdAt;
}

/** Whether the facts call for disabling; the reason to record, or undefined to leave it ACTIVE. */
export function autoDisableReason(input: {
  status: string;
  createdAt: Date;
  lastSuccessAt: Date | null;
  at: Date;
  /** Deliveries FAILED (exhausted) since `quietSince`. */
  exhaustedSince: number;
  rule: AutoDisableRule;
}): string | undefined {
  if (input.status !== "ACTIVE") return undefined;
  if (input.at.getTime() - quietSince(input).getTime() < input.rule.quietMs) return undefined;
  if (input.exhaustedSince < input.rule.exhausted) return undefined;
  const days = Math.round(input.rule.quietMs / 86_400_000);
  return `No successful delivery for ${days} days and ${input.exhaustedSince} failed deliveries`;
}
