// Schemas shared by every route: ids, timestamps, pagination and the problem-details body.

import { type TUnsafe, Type } from "@sinclair/typebox";
import { type ErrorCode, errorCatalog } from "../errors.ts";
import { DISPLAY_NAME_PATTERN } from "../lib/display-name.ts";
import { namedObject } from "./schema-names.ts";

/** A string enum as `{ type: "string", enum }`: one clear validation error, unlike anyOf. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

/** An optional string a client may also send as null (meaning absent, or "clear" on update). */
export function NullableString(
  options: {
    maxLength?: number;
    format?: string;
    description?: string;
    minLength?: number;
    pattern?: string;
  } = {},
) {
  return Type.Unsafe<string | null>({ type: ["string", "null"], ...options });
}

/**
 * A name a person or a mail shows (a customer's, a sender's): 1-`maxLength` characters, at least
 * one visible, no control characters (src/lib/display-name.ts).
 */
export function DisplayName(description: string, maxLength = 200) {
  return Type.String({ minLength: 1, maxLength, pattern: DISPLAY_NAME_PATTERN, description });
}

export const Timestamp = Type.String({
  format: "date-time",
  description: "ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-22T09:30:00.000Z",
  examples: ["2026-11-22T09:30:00.000Z"],
});

export const DateOnly = Type.String({
  format: "date",
  description: "Date, YYYY-MM-DD",
  examples: ["2027-06-12"],
});

export const Id = Type.String({ description: "CUID2 identifier", examples: ["tz4a98xxat96iws9zmbrgj3a"] });
export const IdParams = Type.Object({ id: Id });

/** The largest page a list answers. */
export const MAX_PAGE_SIZE = 100;

/** The page a list answers when the caller names no `limit`. */
export const DEFAULT_PAGE_SIZE = MAX_PAGE_SIZE;

export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      default: DEFAULT_PAGE_SIZE,
      description: `Page size, 1-${MAX_PAGE_SIZE}`,
    }),
  ),
  cursor: Type.Optional(
    Type.String({ maxLength: 512, description: "Opaque cursor from a previous page's nextCursor" }),
  ),
};

/**
 * The instant a list that supports incremental sync starts from (README, Incremental sync):
 * `which` names what it keeps ("orders updated", "events"), `stamp` the field a client tracks.
 */
export function SyncSince(which: string, stamp: "updatedAt" | "createdAt") {
  return Type.String({
    format: "date-time",
    description: `Only ${which} at or after this instant. Incremental sync: pass the newest \`${stamp}\` you have seen (the first time, 1970-01-01T00:00:00Z), follow \`nextCursor\` to the last page, then keep the newest \`${stamp}\` of what you received for the next poll; rows at that same instant come again (de-duplicate by id). Lossless under concurrent writers: a row appears only once every transaction that could still commit an older one has ended (README, Incremental sync).`,
  });
}

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: "Cursor of the next page; null on the last page",
});

/**
 * RFC 9457 problem details: the one definition of an error answer's body, for the routes'
 * response schemas and the OpenAPI document's `Problem` component alike.
 */
export const Problem = Type.Object(
  {
    type: Type.String({ format: "uri", description: "A URL naming the code: its entry in the errors guide" }),
    title: Type.String({ description: "A short, fixed summary of the code" }),
    status: Type.Integer({ description: "The HTTP status" }),
    code: StringEnum(Object.keys(errorCatalog) as ErrorCode[], { description: "The error code" }),
    detail: Type.Optional(Type.String({ description: "What went wrong in this request" })),
    requestId: Type.String({ description: "The request id (also in X-Request-Id): quote it to support" }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: "Dotted path of the field, e.g. `measurements.waist`" }),
          message: Type.String(),
        }),
        {
          description:
            "validation_failed, unknown_reference, customer_email_taken, external_id_taken: one entry per offending field",
        },
      ),
    ),
    existingId: Type.Optional(
      Type.String({
        description:
          "customer_email_taken: the customer who has the e-mail; external_id_taken: the record that has the externalId",
      }),
    ),
    currentStatus: Type.Optional(
      Type.String({ description: "invalid_transition: the resource's status now" }),
    ),
    allowedStatuses: Type.Optional(
      Type.Array(Type.String(), { description: "invalid_transition: the statuses it can move to from here" }),
    ),
  },
  {
    title: "Problem",
    additionalProperties: true,
    description:
      "RFC 9457 problem details. `code` names the error (see the errors guide for each code's cause and remedy); some codes add members, listed below.",
  },
);

/** The integrator's own id for a resource (CONTRACT 12): unique per shop and resource. */
export const ExternalId = Type.Unsafe<string | null>({
  type: ["string", "null"],
  minLength: 1,
  maxLength: 255,
  description:
    "Your own id for this record (e.g. the POS's), at most 255 characters, unique per shop among records of this kind (409 external_id_taken otherwise); null clears it. Filter lists with `?externalId=`.",
  examples: ["pos-48213"],
});

/**
 * The integrator's key-value pairs (CONTRACT 12, as Stripe's metadata): at most 50 keys of at
 * most 40 characters, string values of at most 500. Given on update, it replaces the whole set.
 */
export const Metadata = Type.Unsafe<Record<string, string>>({
  type: "object",
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { type: "string", maxLength: 500 },
  description:
    "Your own string pairs: at most 50 keys of at most 40 characters, values of at most 500 characters. On update the object given replaces the whole set ({} clears it).",
  examples: [{ posId: "48213", till: "2" }],
});

/** The `?externalId=` filter of a list. */
export const ExternalIdFilter = Type.String({
  minLength: 1,
  maxLength: 255,
  description: "Only the record with this externalId (exact match)",
});

/** `includeDeleted` of a sync list (CONTRACT 12, Deletions). */
export const IncludeDeleted = Type.Boolean({
  description:
    "With updatedSince: the list also carries a tombstone `{ id, deleted: true, updatedAt }` (updatedAt = when it went) for each record deleted, erased or merged away in the window (kept 30 days), and is ordered by updatedAt then id, newest first, rows and tombstones together. Without updatedSince: 400.",
});

/** What a sync list with includeDeleted shows of a record that is gone. */
export const TombstoneSchema = namedObject(
  "Tombstone",
  {
    id: Id,
    deleted: Type.Literal(true),
    updatedAt: Type.String({
      format: "date-time",
      description: "When it was deleted, erased or merged away",
    }),
  },
  { description: "A record deleted within the last 30 days (lists with includeDeleted=true only)" },
);
