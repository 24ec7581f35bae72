// What the owner is told after changing an appointment when the customer could not be told by
// mail (CONTRACT 12, "Telling the customer"): the reason, in the shop's language, added to the
// page's flash so it shows where the change was made.

import { isLanguage } from "../../i18n/languages.ts";
import { translator } from "../../i18n/translator.ts";
import type { CustomerNotice } from "../../modules/appointments/appointment-notices.ts";

export function withCustomerNotice(message: string, notice: CustomerNotice | undefined): string {
  if (!notice?.notTold) return message;
  const t = translator(isLanguage(notice.shopLanguage) ? notice.shopLanguage : "en");
  const reason = t.t(`appointments.notice.reason.${notice.notTold}`);
  return `${message} ${t.t("appointments.notice.notTold", { reason })}`;
}
