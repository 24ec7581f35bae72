import { type Static, Type } from "@sinclair/typebox";
import { Id, NextCursor, PageQuery, StringEnum, Timestamp } from "../../http/common-schemas.ts";
import { eventTypes } from "./catalog.ts";

export const EventSchema = Type.Object(
  {
    id: Id,
    event: Type.String({ description: "The event name" }),
    data: Type.Object({}, { additionalProperties: true, description: "The payload, as delivered" }),
    createdAt: Timestamp,
  },
  { description: "An event, as its webhook deliveries carry it" },
);

export const ListEventsQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(StringEnum(eventTypes, { description: "Only events of this type" })),
  since: Type.Optional(
    Type.String({
      format: "date-time",
      description:
        "Only events at or after this instant. Incremental sync: pass the newest `createdAt` you have seen (the first time, 1970-01-01T00:00:00Z), follow `nextCursor` to the last page, then keep the newest `createdAt` of what you received for the next poll; rows at that same instant come again (de-duplicate by id). Lossless under concurrent writers: a row appears only once every transaction that could still commit an older one has ended (README, Incremental sync).",
    }),
  ),
});
export type ListEventsQuery = Static<typeof ListEventsQuery>;

export const EventListResponse = Type.Object({
  events: Type.Array(EventSchema, { description: "Newest first, at most 30 days old" }),
  nextCursor: NextCursor,
});
