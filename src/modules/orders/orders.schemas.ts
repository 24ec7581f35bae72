import { type Static, Type } from "@sinclair/typebox";
import {
  DisplayName,
  ExternalId,
  Id,
  IncludeDeleted,
  Metadata,
  NextCursor,
  NullableString,
  PageQuery,
  StringEnum,
  SyncSince,
  Timestamp,
  TombstoneSchema,
} from "../../http/common-schemas.ts";
import { named, namedObject } from "../../http/schema-names.ts";
import { orderStatuses, orderTypes } from "./orders.workflow.ts";

const Nullable = <T extends object>(schema: T) => ({ ...schema, type: ["string", "null"] });

export const OrderTypeSchema = named("OrderType", StringEnum(orderTypes, { description: "Kind of order" }));
export const OrderStatusSchema = named(
  "OrderStatus",
  StringEnum(orderStatuses, {
    description: "Order status; the moves allowed are in the table under Orders",
  }),
);

export const EntryPhotoSchema = namedObject(
  "EntryPhoto",
  {
    id: Id,
    url: Type.String({
      format: "uri",
      description: "The JPEG (at most 2048 px), through an unguessable link that needs no credentials",
    }),
    thumbnailUrl: Type.String({ format: "uri", description: "Its thumbnail (at most 400 px)" }),
  },
  { description: "A photo uploaded with POST /api/vendor/orders/{id}/photos" },
);

const EntryPhotos = Type.Array(EntryPhotoSchema, {
  description: "Photos uploaded for this order and named in photoIds, in the order they were uploaded",
});

export const OrderUpdateSchema = namedObject("OrderUpdate", {
  status: OrderStatusSchema,
  message: Type.Unsafe<string | null>(Nullable({ description: "Message shown to the customer" })),
  imageUrl: Type.Unsafe<string | null>(Nullable({ description: "Progress photo URL" })),
  photos: EntryPhotos,
  createdAt: Timestamp,
});

export const OrderSchema = namedObject(
  "Order",
  {
    id: Id,
    number: Type.Integer({
      description: "The shop's order number: 1001, 1002, … in the order they were made",
    }),
    type: OrderTypeSchema,
    status: OrderStatusSchema,
    model: NullableString(),
    size: NullableString(),
    color: NullableString(),
    description: NullableString(),
    specialRequests: NullableString(),
    dueDate: NullableString({
      format: "date",
      description:
        "When the order is due, YYYY-MM-DD: as set, else the customer's wedding date minus the shop's lead time for the order type; null when neither is known",
    }),
    pickupDate: NullableString({ format: "date", description: "RENTAL: when the customer picks it up" }),
    dueBackDate: NullableString({ format: "date", description: "RENTAL: when it is due back" }),
    customerId: Type.Union([Id, Type.Null()], {
      description: "The order's customer; null once that customer was erased on request",
    }),
    customer: Type.Union([Type.Object({ name: Type.String(), email: NullableString() }), Type.Null()], {
      description: "The customer's name and e-mail; null once the customer was erased",
    }),
    externalId: Type.Union([ExternalId, Type.Null()], { description: "Your own id for the order, if set" }),
    metadata: Metadata,
    updates: Type.Array(OrderUpdateSchema, { description: "Status history, oldest first" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: "An order with its status history" },
);
export type OrderSchema = Static<typeof OrderSchema>;

const text = (maxLength: number, description: string) =>
  Type.Optional(NullableString({ maxLength, description }));

export const CreateOrderBody = namedObject(
  "CreateOrder",
  {
    customerId: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "The shop's customer the order is for; instead of customerName, customerEmail, customerPhone and weddingDate",
      }),
    ),
    customerName: Type.Optional(DisplayName("Customer name; required unless customerId is given")),
    type: OrderTypeSchema,
    customerEmail: Type.Optional(
      NullableString({
        format: "email",
        maxLength: 254,
        description: "Links the order to the customer with this e-mail",
      }),
    ),
    customerPhone: text(
      50,
      "Telephone number: without a customer of that e-mail, links the order to the customer with this number (compared in E.164, the shop's country as default), else is stored on the new customer",
    ),
    weddingDate: Type.Optional(NullableString({ format: "date", description: "Wedding date, YYYY-MM-DD" })),
    model: text(200, "Model name"),
    description: text(5000, "Order description"),
    size: text(50, "Size"),
    color: text(100, "Color"),
    specialRequests: text(5000, "Special requests"),
    dueDate: Type.Optional(
      NullableString({
        format: "date",
        description:
          "When the order is due, YYYY-MM-DD; null or left out: the wedding date minus the shop's lead time for the type",
      }),
    ),
    pickupDate: Type.Optional(
      NullableString({
        format: "date",
        description: "RENTAL only: when the customer picks it up, YYYY-MM-DD",
      }),
    ),
    dueBackDate: Type.Optional(
      NullableString({
        format: "date",
        description: "RENTAL only: when it is due back, YYYY-MM-DD, not before pickupDate",
      }),
    ),
    externalId: Type.Optional(
      Type.Union([ExternalId, Type.Null()], {
        description: "Your own id for the order; unique among the shop's orders",
      }),
    ),
    metadata: Type.Optional(Type.Union([Metadata, Type.Null()], { description: Metadata.description })),
  },
  { additionalProperties: false },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

export const UpdateOrderStatusBody = namedObject(
  "UpdateOrderStatus",
  {
    status: OrderStatusSchema,
    message: Type.Optional(
      NullableString({ maxLength: 2000, description: "Status message shown to the customer" }),
    ),
    imageUrl: Type.Optional(
      NullableString({
        maxLength: 2048,
        format: "uri",
        pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
        description: "Absolute http(s) URL of an image, e.g. a progress photo",
      }),
    ),
    photoIds: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 20,
        uniqueItems: true,
        description:
          "Photos of this order uploaded with POST /api/vendor/orders/{id}/photos and not yet shown with another status entry; the entry shows them",
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateOrderStatusBody = Static<typeof UpdateOrderStatusBody>;

export const UpdateOrderBody = namedObject(
  "UpdateOrder",
  {
    model: text(200, "Model name"),
    size: text(50, "Size"),
    color: text(100, "Color"),
    description: text(5000, "Order description"),
    specialRequests: text(5000, "Special requests"),
    dueDate: Type.Optional(
      NullableString({
        format: "date",
        description:
          "When the order is due, YYYY-MM-DD; null or left out: the wedding date minus the shop's lead time for the type",
      }),
    ),
    pickupDate: Type.Optional(
      NullableString({
        format: "date",
        description: "RENTAL only: when the customer picks it up, YYYY-MM-DD",
      }),
    ),
    dueBackDate: Type.Optional(
      NullableString({
        format: "date",
        description: "RENTAL only: when it is due back, YYYY-MM-DD, not before pickupDate",
      }),
    ),
    externalId: Type.Optional(
      Type.Union([ExternalId, Type.Null()], { description: "Your own id for the order; null removes it" }),
    ),
    metadata: Type.Optional(
      Type.Union([Metadata, Type.Null()], {
        description: "Replaces the order's metadata as a whole; null or {} removes every key",
      }),
    ),
  },
  {
    additionalProperties: false,
    description: "The details to change; fields left out are unchanged, null clears one",
  },
);
export type UpdateOrderBody = Static<typeof UpdateOrderBody>;

export const OrderStatusChangedSchema = namedObject(
  "OrderStatusChange",
  {
    id: Id,
    number: Type.Integer({ description: "The shop's order number" }),
    status: OrderStatusSchema,
    previousStatus: OrderStatusSchema,
    customerId: Type.Union([Id, Type.Null()], {
      description: "The order's customer; null once that customer was erased on request",
    }),
    externalId: Type.Union([ExternalId, Type.Null()], { description: "Your own id for the order, if set" }),
    metadata: Metadata,
    updatedAt: Timestamp,
    message: Type.Unsafe<string | null>(Nullable({ description: "The message sent with the move" })),
    imageUrl: Type.Unsafe<string | null>(Nullable({ description: "The photo sent with the move" })),
    photos: EntryPhotos,
  },
  { description: "An order's move to another status" },
);
export type OrderStatusChangedSchema = Static<typeof OrderStatusChangedSchema>;

export const OrderStatusResponse = namedObject("OrderStatusResult", { id: Id, status: OrderStatusSchema });

export const ListOrdersQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(
    Type.Array(OrderStatusSchema, {
      maxItems: orderStatuses.length,
      description:
        "Only orders in this status; repeat the parameter for several (status=ORDERED&status=IN_PRODUCTION)",
    }),
  ),
  customerId: Type.Optional(Type.String({ maxLength: 64, description: "Only this customer's orders" })),
  number: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: "Only the order with this number" }),
  ),
  externalId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: "Only the order with this externalId" }),
  ),
  updatedSince: Type.Optional(SyncSince("orders updated", "updatedAt")),
  includeDeleted: Type.Optional(IncludeDeleted),
});
export type ListOrdersQuery = Static<typeof ListOrdersQuery>;

export const OrderListResponse = namedObject("OrderList", {
  orders: Type.Array(Type.Union([OrderSchema, TombstoneSchema]), {
    description: "Most recently updated first; with includeDeleted, tombstones of deleted orders among them",
  }),
  nextCursor: NextCursor,
});
