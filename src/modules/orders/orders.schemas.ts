import { type Static, Type } from "@sinclair/typebox";
import {
  Id,
  NextCursor,
  NullableString,
  PageQuery,
  StringEnum,
  Timestamp,
} from "../../http/common-schemas.ts";
import { orderStatuses, orderTypes } from "./orders.workflow.ts";

const Nullable = <T extends object>(schema: T) => ({ ...schema, type: ["string", "null"] });

export const OrderTypeSchema = StringEnum(orderTypes, { description: "Kind of order" });
export const OrderStatusSchema = StringEnum(orderStatuses, {
  description: "Order status (CONTRACT 4 workflow)",
});

export const OrderUpdateSchema = Type.Object({
  status: OrderStatusSchema,
  message: Type.Unsafe<string | null>(Nullable({ description: "Message shown to the customer" })),
  imageUrl: Type.Unsafe<string | null>(Nullable({ description: "Progress photo URL" })),
  createdAt: Timestamp,
});

export const OrderSchema = Type.Object(
  {
    id: Id,
    type: OrderTypeSchema,
    status: OrderStatusSchema,
    model: NullableString(),
    size: NullableString(),
    color: NullableString(),
    description: NullableString(),
    specialRequests: NullableString(),
    customerId: Id,
    customer: Type.Object({ name: Type.String(), email: NullableString() }),
    updates: Type.Array(OrderUpdateSchema, { description: "Status history, oldest first" }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: "An order with its status history" },
);
export type OrderSchema = Static<typeof OrderSchema>;

const text = (maxLength: number, description: string) =>
  Type.Optional(NullableString({ maxLength, description }));

export const CreateOrderBody = Type.Object(
  {
    customerName: Type.String({ minLength: 1, maxLength: 200, pattern: "\\S", description: "Customer name" }),
    type: OrderTypeSchema,
    customerEmail: Type.Optional(
      NullableString({
        format: "email",
        maxLength: 254,
        description: "Links the order to the customer with this e-mail",
      }),
    ),
    customerPhone: text(50, "Telephone number (stored on a newly created customer)"),
    weddingDate: Type.Optional(NullableString({ format: "date", description: "Wedding date, YYYY-MM-DD" })),
    model: text(200, "Model name"),
    description: text(5000, "Order description"),
    size: text(50, "Size"),
    color: text(100, "Color"),
    specialRequests: text(5000, "Special requests"),
  },
  { additionalProperties: false },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

export const UpdateOrderStatusBody = Type.Object(
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
  },
  { additionalProperties: false },
);
export type UpdateOrderStatusBody = Static<typeof UpdateOrderStatusBody>;

export const OrderStatusResponse = Type.Object({ id: Id, status: OrderStatusSchema });

export const ListOrdersQuery = Type.Object({
  ...PageQuery,
  updatedSince: Type.Optional(
    Type.String({ format: "date-time", description: "Only orders updated at or after this instant" }),
  ),
});
export type ListOrdersQuery = Static<typeof ListOrdersQuery>;

export const OrderListResponse = Type.Object({
  orders: Type.Array(OrderSchema, { description: "Most recently updated first" }),
  nextCursor: NextCursor,
});
