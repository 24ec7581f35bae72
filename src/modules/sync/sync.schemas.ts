import { type Static, Type } from "@sinclair/typebox";
import { StringEnum } from "../../http/common-schemas.ts";
import { namedObject } from "../../http/schema-names.ts";

export const syncedResources = ["orders", "customers", "appointments"] as const;

export const ChecksumQuery = Type.Object({
  resource: StringEnum(syncedResources, { description: "Which records: orders, customers or appointments" }),
  until: Type.Optional(
    Type.String({
      format: "date-time",
      description:
        "Only records whose updatedAt is at or before this instant (the newest updatedAt your copy has seen is a good choice). Default: the sync horizon, the instant up to which every change has committed.",
    }),
  ),
});
export type ChecksumQuery = Static<typeof ChecksumQuery>;

export const ChecksumResponse = namedObject(
  "SyncChecksum",
  {
    resource: StringEnum(syncedResources),
    until: Type.String({
      format: "date-time",
      description: "The instant the checksum covers up to, inclusive",
    }),
    days: Type.Array(
      Type.Object({
        day: Type.String({ format: "date", description: "A UTC day, YYYY-MM-DD, of the records' updatedAt" }),
        count: Type.Integer({ description: "How many records were last updated that day" }),
        hash: Type.String({
          description:
            'Lowercase hex SHA-256 of the lines `<id>:<updatedAt>` (updatedAt exactly as the API writes it) of that day\'s records, sorted by id in byte order, joined with "\\n" (no newline at the end)',
        }),
      }),
      {
        description: "One entry per UTC day holding records (deleted records are not counted), oldest first",
      },
    ),
  },
  { description: "What a copy kept in sync must hold, day by day" },
);
