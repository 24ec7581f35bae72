import { type Static, Type } from "@sinclair/typebox";
import { Id, NextCursor, PageQuery, StringEnum, SyncSince, Timestamp } from "../../http/common-schemas.ts";
import { namedObject } from "../../http/schema-names.ts";
import { eventTypes } from "./catalog.ts";

export const EventSchema = namedObject(
  "Event",
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
  since: Type.Optional(SyncSince("events", "createdAt")),
});
export type ListEventsQuery = Static<typeof ListEventsQuery>;

export const EventListResponse = namedObject("EventList", {
  events: Type.Array(EventSchema, { description: "Newest first, at most 30 days old" }),
  nextCursor: NextCursor,
});
