import type { InquiryRow } from "./inquiries.repository.ts";

/** The one place an inquiry row becomes JSON (API responses and the inquiry.received payload). */
export function presentInquiry(row: InquiryRow) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    weddingDate: row.weddingDate,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The dashboard's inquiry: the API's JSON and when the vendor handled it (null: still open). */
export function presentHandledInquiry(row: InquiryRow) {
  return { ...presentInquiry(row), handledAt: row.handledAt?.toISOString() ?? null };
}

export type HandledInquiry = ReturnType<typeof presentHandledInquiry>;
