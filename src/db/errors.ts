/** A unique-constraint violation (SQLSTATE 23505), whether Drizzle wrapped the driver error or not. */
export function isUniqueViolation(error: unknown): boolean {
  let e: unknown = error;
  for (let i = 0; i < 3 && e; i++) {
    if ((e as { code?: unknown }).code === "23505") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Whether `error` is a unique violation of the named index (SQLSTATE 23505 with its name). */
export function isUniqueViolationOf(error: unknown, index: string): boolean {
  let e: unknown = error;
  for (let i = 0; i < 3 && e; i++) {
    const { code, constraint, message } = e as { code?: unknown; constraint?: unknown; message?: unknown };
    if (code === "23505")
      return constraint === index || (typeof message === "string" && message.includes(index));
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
