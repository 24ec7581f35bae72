// A new inquiry from the shop's website, to the shop (its notification e-mail, CONTRACT 12).
// Reply-To is the sender, so the shop answers with its own mail program.
import { html } from "../../lib/html.ts";
import { defineMail, oneLine } from "../template.ts";
import { mailFrame, mailLink, paragraphs } from "./frame.ts";

export interface InquiryMailData {
  shopName: string;
  inquiryId: string;
  name: string;
  email: string;
  phone: string | null;
  weddingDate: string | null;
  message: string;
}

export const inquiryReceivedMail = defineMail<InquiryMailData>({
  audience: "shop",
  render(data, ctx) {
    const link = `${ctx.publicUrl}/dashboard/inquiries/${encodeURIComponent(data.inquiryId)}`;
    const details = [
      `From: ${data.name} <${data.email}>`,
      ...(data.phone ? [`Phone: ${data.phone}`] : []),
      ...(data.weddingDate ? [`Wedding date: ${data.weddingDate}`] : []),
    ];
    return {
      subject: oneLine(`New inquiry from ${data.name}`),
      replyTo: data.email,
      text: `${details.join("\n")}

${data.message}

Reply to this mail to answer ${data.name}, or open the inquiry in your dashboard:
${link}
`,
      html: mailFrame({
        heading: `New inquiry for ${data.shopName}`,
        body: html`<ul>${details.map((d) => html`<li>${d}</li>`)}</ul>
${paragraphs(data.message)}
<p>Reply to this mail to answer ${data.name}, or open the inquiry in your dashboard:</p>
${mailLink(link, "Open the inquiry")}`,
      }),
    };
  },
});
