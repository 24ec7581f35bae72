import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ServiceContext } from "../../context.ts";
import { declareApiTag } from "../../http/api-tags.ts";
import { principalOf } from "../../http/authenticate.ts";
import { IdParams } from "../../http/common-schemas.ts";
import { withEtag } from "../../http/conditional.ts";
import { created } from "../../http/created.ts";
import { mergeCustomers } from "./customer-merge.service.ts";
import {
  CreateCustomerBody,
  CustomerDetailSchema,
  CustomerListResponse,
  CustomerSchema,
  ListCustomersQuery,
  MergeCustomersBody,
} from "./customers.schemas.ts";
import { createCustomer, getCustomer, listCustomersForApi } from "./customers.service.ts";

export const customerTags = declareApiTag("Customers", "Customers, with measurements and preferences");
const tags = customerTags;

// PATCH, PUT and DELETE /customers/:id reach orders and photos: use-cases/customer-writes.routes.ts,
// registered right after these.

export const customerRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (app, { ctx }) => {
  app.get(
    "/customers",
    {
      config: { scope: "customers:read" },
      schema: {
        tags,
        operationId: "listCustomers",
        summary: "List customers",
        description: "The vendor's customers, newest first. Without parameters: the last 100.",
        querystring: ListCustomersQuery,
        response: { 200: CustomerListResponse },
      },
    },
    async (request) => listCustomersForApi(ctx, principalOf(request).vendorId, request.query),
  );

  app.post(
    "/customers",
    {
      config: { scope: "customers:write", errors: ["customer_email_taken", "external_id_taken"] },
      schema: {
        tags,
        operationId: "createCustomer",
        summary: "Create a customer",
        description:
          "Creates a customer and emits customer.created. The e-mail is unique per vendor (case-insensitive): a taken one is 409 customer_email_taken with existingId.",
        body: CreateCustomerBody,
        response: { 201: CustomerSchema },
      },
    },
    async (request, reply) => {
      const customer = await createCustomer(ctx, principalOf(request).vendorId, request.body);
      // Its ETag is that of retrieve's answer, which adds the counts (none yet).
      withEtag(reply, { ...customer, counts: { orders: 0, appointments: 0 } });
      return created(reply, `/api/vendor/customers/${customer.id}`).send(customer);
    },
  );

  app.get(
    "/customers/:id",
    {
      config: { scope: "customers:read" },
      schema: {
        tags,
        operationId: "getCustomer",
        summary: "Retrieve a customer",
        description: "The complete customer with counts of their orders and appointments.",
        params: IdParams,
        response: { 200: CustomerDetailSchema },
      },
    },
    async (request, reply) => {
      const customer = await getCustomer(ctx, principalOf(request).vendorId, request.params.id);
      withEtag(reply, customer);
      return customer;
    },
  );

  app.post(
    "/customers/:id/merge",
    {
      config: { scope: "customers:write" },
      schema: {
        tags,
        operationId: "mergeCustomers",
        summary: "Merge a duplicate into a customer",
        description:
          "Moves the orders, appointments and inquiries of customer `from` to this customer, keeps the richer value of each field (this customer's unless it is empty; measurements and preferences joined key by key, this customer's winning) and deletes `from`. Emits customer.updated for this customer and customer.deleted with `mergedInto` for the other. Answers this customer as retrieve does. Cannot be undone.",
        params: IdParams,
        body: MergeCustomersBody,
        response: { 200: CustomerDetailSchema },
      },
    },
    async (request, reply) => {
      const kept = await mergeCustomers(
        ctx,
        principalOf(request).vendorId,
        request.params.id,
        request.body.from,
      );
      // The kept customer as retrieve answers it, with the same ETag (CONTRACT 12).
      withEtag(reply, kept);
      return kept;
    },
  );
};
