import { type Static, Type } from "@sinclair/typebox";
import {
  DisplayName,
  ExternalId,
  ExternalIdFilter,
  Id,
  IncludeDeleted,
  Metadata,
  NextCursor,
  NullableString,
  PageQuery,
  SyncSince,
  Timestamp,
  TombstoneSchema,
} from "../../http/common-schemas.ts";
import { NullableLanguage } from "../../http/language.ts";
import { namedObject } from "../../http/schema-names.ts";

/** Free-form JSON objects (spec 2.2); their size and depth are bounded by the service. */
const FreeForm = (description: string) =>
  Type.Unsafe<Record<string, unknown> | null>({
    type: ["object", "null"],
    additionalProperties: true,
    description: `${description}; inner keys free-form, at most 16 KiB serialized and 5 levels deep`,
  });

export const CustomerSchema = namedObject(
  "Customer",
  {
    id: Id,
    name: Type.String(),
    email: NullableString({ description: "E-mail address, unique per vendor (case-insensitive)" }),
    phone: NullableString(),
    weddingDate: NullableString({ format: "date", description: "YYYY-MM-DD" }),
    language: NullableLanguage(
      "The customer's language for pages and mail, as stored: one of the languages, or null for the shop's (GET /api/vendor/profile `language`)",
    ),
    notes: NullableString(),
    measurements: FreeForm("Measurements"),
    preferences: FreeForm("Preferences"),
    externalId: Type.Union([Type.String(), Type.Null()], {
      description: "Your own id for the customer, if set",
    }),
    metadata: Type.Record(Type.String(), Type.String(), {
      description: "Your own string pairs ({} when none)",
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: "A customer of the vendor" },
);

export const CustomerDetailSchema = namedObject(
  "CustomerWithCounts",
  {
    ...CustomerSchema.properties,
    counts: Type.Object(
      { orders: Type.Integer(), appointments: Type.Integer() },
      { description: "How many orders and appointments the customer has" },
    ),
  },
  { description: "A customer with counts of orders and appointments" },
);

const fields = {
  email: Type.Optional(NullableString({ format: "email", maxLength: 254, description: "E-mail address" })),
  phone: Type.Optional(NullableString({ maxLength: 50, description: "Telephone number" })),
  weddingDate: Type.Optional(NullableString({ format: "date", description: "Wedding date, YYYY-MM-DD" })),
  language: Type.Optional(
    NullableLanguage("The customer's language for pages and mail; null (or left out on create): the shop's"),
  ),
  notes: Type.Optional(NullableString({ maxLength: 5000, description: "Notes about the customer" })),
  measurements: Type.Optional(FreeForm("Measurements as a JSON object")),
  preferences: Type.Optional(FreeForm("Preferences as a JSON object")),
  externalId: Type.Optional(ExternalId),
  metadata: Type.Optional(Metadata),
};
const Name = DisplayName("Customer name");

export const CreateCustomerBody = namedObject(
  "CreateCustomer",
  { name: Name, ...fields },
  { additionalProperties: false },
);
export type CreateCustomerBody = Static<typeof CreateCustomerBody>;

export const UpdateCustomerBody = namedObject(
  "UpdateCustomer",
  { name: Type.Optional(Name), ...fields },
  {
    additionalProperties: false,
    description: "Partial update: fields left out are unchanged, null clears an optional field",
  },
);
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>;

export const ListCustomersQuery = Type.Object({
  ...PageQuery,
  updatedSince: Type.Optional(SyncSince("customers updated", "updatedAt")),
  email: Type.Optional(
    Type.String({ maxLength: 254, description: "Only the customer with this e-mail (case-insensitive)" }),
  ),
  externalId: Type.Optional(ExternalIdFilter),
  includeDeleted: Type.Optional(IncludeDeleted),
});
export type ListCustomersQuery = Static<typeof ListCustomersQuery>;

export const CustomerListResponse = namedObject("CustomerList", {
  customers: Type.Array(Type.Union([CustomerSchema, TombstoneSchema]), {
    description:
      "Newest first (by creation); with includeDeleted, by updatedAt with tombstones of deleted customers",
  }),
  nextCursor: NextCursor,
});

export const MergeCustomersBody = namedObject(
  "MergeCustomers",
  {
    from: Type.String({
      maxLength: 64,
      description: "The duplicate customer to merge into this one; it is deleted",
    }),
  },
  { additionalProperties: false },
);
export type MergeCustomersBody = Static<typeof MergeCustomersBody>;
