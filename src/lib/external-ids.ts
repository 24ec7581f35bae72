// The answer to an integrator's id that another record of the shop already has (CONTRACT 12):
// 409 external_id_taken naming the field, with the record that has it, as customer_email_taken.
import { AppError } from "../errors.ts";

export function externalIdTaken(what: "customer" | "appointment" | "order", existingId?: string): AppError {
  return new AppError("external_id_taken", `Another ${what} of this shop has this externalId`, {
    errors: [{ field: "externalId", message: `is already used by another ${what}` }],
    ...(existingId ? { existingId } : {}),
  });
}
