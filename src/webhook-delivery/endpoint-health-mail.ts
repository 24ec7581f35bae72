// When the shop's owners are mailed about a webhook endpoint (CONTRACT 12), decided without I/O;
// attempts.repository.ts and attempts-batch.repository.ts write the mail in the transaction (or
// the statement) that records the attempt, under the webhook's row lock, so however many
// dispatchers record attempts of one endpoint, each change is mailed exactly once:
//
// 1. An ACTIVE endpoint **starts failing** when an attempt of a delivery to it fails and is that
//    delivery's 4th (`FAILING_AFTER_ATTEMPTS`; about 36 minutes after its first on the default
//    schedule) or later, or gives the delivery up sooner (a shorter schedule): as Svix's
//    `message.attempt.failing`, after the 4th failure of one message, so one blip mails nobody.
//    Any failed answer counts (a 4xx too: the receiver refuses what it is sent). The webhook's
//    `failing_notified_at` is set with the mail; while it is set no other "failing" mail goes.
// 2. It **recovers** with its next successful delivery: `failing_notified_at` is cleared with a
//    "recovered" mail.
// 3. It **is disabled** by the service (a 410, or the 5-day rule of auto-disable.ts): a
//    "disabled" mail, once (the change from ACTIVE happens once), and `failing_notified_at` is
//    cleared, so enabling it again starts afresh. A shop that disables its own endpoint is not
//    told what it did.
// The mail goes to the shop's notification e-mail (its sign-in e-mail when none is set), as every
// mail to the shop does; a sandbox's endpoints mail nobody (a sandbox's mail is never sent).
export const FAILING_AFTER_ATTEMPTS = 4;

/** What the rules read of an attempt's record (attempts.repository.ts AttemptRecord). */
interface RecordFacts {
  attempt: number;
  outcome: { status: "PENDING" | "SUCCEEDED" | "FAILED" };
  skipped?: boolean | undefined;
  disableReason?: string | undefined;
  error: string | undefined;
  statusCode: number | undefined;
}

/** Whether this attempt's record may mark its endpoint failing (rule 1). */
export function marksFailing(
  record: Pick<RecordFacts, "attempt" | "outcome" | "skipped" | "disableReason">,
): boolean {
  if (record.skipped === true || record.disableReason !== undefined) return false;
  if (record.outcome.status === "SUCCEEDED") return false;
  return record.attempt >= FAILING_AFTER_ATTEMPTS || record.outcome.status === "FAILED";
}

/** What the "failing" mail names as the last failure: the error, else the status the receiver answered. */
export function failureText(record: Pick<RecordFacts, "error" | "statusCode">): string {
  if (record.statusCode !== undefined) return `HTTP ${record.statusCode}`;
  return record.error ?? "no answer";
}
