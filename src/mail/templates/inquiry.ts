// A new inquiry from the shop's website, to the shop (its notification e-mail, CONTRACT 12).
// Reply-To is the sender, so the shop answers with its own mail program. In the shop's language
// (rows written before read English); the wedding date is shown as its day in that language.
import { html } from "../../lib/html.ts";
import { defineMail, oneLine } from "../template.ts";
import { mailReader } from "./account.ts";
import { mailFrame, mailLink, paragraphs } from "./frame.ts";

export interface InquiryMailData {
  shopName: string;
  inquiryId: string;
  name: string;
  email: string;
  phone: string | null;
  weddingDate: string | null;
  message: string;
  language?: string | null;
}

export const inquiryReceivedMail = defineMail<InquiryMailData>({
  audience: "shop",
  render(data, ctx) {
    const t = mailReader(data.language);
    const link = `${ctx.publicUrl}/dashboard/inquiries/${encodeURIComponent(data.inquiryId)}`;
    const wedding =
      data.weddingDate && /^\d{4}-\d{2}-\d{2}$/.test(data.weddingDate)
        ? t.date(new Date(`${data.weddingDate}T12:00:00Z`), "UTC")
        : data.weddingDate;
    const details = [
      t.t("shopMail.inquiry.from", { name: data.name, email: data.email }),
      ...(data.phone ? [t.t("shopMail.inquiry.phone", { phone: data.phone })] : []),
      ...(wedding ? [t.t("shopMail.inquiry.weddingDate", { date: wedding })] : []),
    ];
    return {
      subject: oneLine(t.t("shopMail.inquiry.subject", { name: data.name })),
      replyTo: data.email,
      text: `${details.join("\n")}

${data.message}

${t.t("shopMail.inquiry.reply", { name: data.name })}
${link}
`,
      html: mailFrame({
        heading: t.t("shopMail.inquiry.heading", { shop: data.shopName }),
        body: html`<ul>${details.map((d) => html`<li>${d}</li>`)}</ul>
${paragraphs(data.message)}
<p>${t.t("shopMail.inquiry.reply", { name: data.name })}</p>
${mailLink(link, t.t("shopMail.inquiry.button"))}`,
        lang: t.locale,
      }),
    };
  },
});
