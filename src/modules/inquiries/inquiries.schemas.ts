import { type Static, Type } from "@sinclair/typebox";
import {
  DisplayName,
  Id,
  NextCursor,
  NullableString,
  PageQuery,
  Timestamp,
} from "../../http/common-schemas.ts";
import { LanguageSchema } from "../../http/language.ts";
import { namedObject } from "../../http/schema-names.ts";

export const InquirySchema = namedObject(
  "Inquiry",
  {
    id: Id,
    name: Type.String(),
    email: Type.String(),
    phone: NullableString(),
    weddingDate: NullableString({ format: "date", description: "YYYY-MM-DD" }),
    message: Type.String(),
    createdAt: Timestamp,
  },
  { description: "A message sent to the vendor through the public inquiry form" },
);

export const CreateInquiryBody = namedObject(
  "CreateInquiry",
  {
    name: DisplayName("Sender's name"),
    email: Type.String({ format: "email", maxLength: 254, description: "Sender's e-mail address" }),
    phone: Type.Optional(NullableString({ maxLength: 50, description: "Telephone number" })),
    weddingDate: Type.Optional(NullableString({ format: "date", description: "Wedding date, YYYY-MM-DD" })),
    message: Type.String({ minLength: 1, maxLength: 5000, pattern: "\\S", description: "The message" }),
    language: Type.Optional(LanguageSchema),
  },
  { additionalProperties: false },
);
export type CreateInquiryBody = Static<typeof CreateInquiryBody>;

export const InquiryCreatedResponse = namedObject("InquiryReceipt", { id: Id });
export const VendorIdParams = Type.Object({ vendorId: Id });

export const ListInquiriesQuery = Type.Object({ ...PageQuery });
export type ListInquiriesQuery = Static<typeof ListInquiriesQuery>;

export const InquiryListResponse = namedObject("InquiryList", {
  inquiries: Type.Array(InquirySchema, { description: "Newest first" }),
  nextCursor: NextCursor,
});
