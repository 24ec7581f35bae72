// PATCH, PUT and DELETE /customers/:id, the customer writes that reach other modules: a new
// wedding date re-evaluates her orders' alerts, an erasure detaches her orders and deletes their
// photos. Registered right after customers.routes.ts, so the OpenAPI document keeps its order.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { ServiceContext } from "../../context.ts";
import { principalOf } from "../../http/authenticate.ts";
import { IdParams } from "../../http/common-schemas.ts";
import { underIfMatch, underIfMatchDeleting, withEtag } from "../../http/conditional.ts";
import { customerTags } from "../customers/customers.routes.ts";
import { CustomerDetailSchema, UpdateCustomerBody } from "../customers/customers.schemas.ts";
import { lockedCustomerJson } from "../customers/customers.service.ts";
import { eraseCustomer } from "./customer-erasure.service.ts";
import { updateCustomer } from "./customer-update.service.ts";

const tags = customerTags;

export const customerWriteRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext }> = async (
  app,
  { ctx },
) => {
  for (const method of ["PATCH", "PUT"] as const) {
    app.route({
      method,
      url: "/customers/:id",
      config: {
        scope: "customers:write",
        ifMatch: true,
        errors: ["customer_email_taken", "external_id_taken"],
      },
      schema: {
        tags,
        operationId: method === "PATCH" ? "updateCustomer" : "replaceCustomer",
        summary: method === "PATCH" ? "Update a customer" : "Update a customer (PUT, same partial semantics)",
        description:
          "Partial update: fields left out are unchanged, null clears an optional field. PATCH and PUT behave the same. Emits customer.updated.",
        params: IdParams,
        body: UpdateCustomerBody,
        response: { 200: CustomerDetailSchema },
      },
      handler: async (request, reply) => {
        const { vendorId } = principalOf(request);
        const { id } = request.params;
        const customer = await underIfMatch(
          ctx,
          request,
          () => lockedCustomerJson(ctx, vendorId, id),
          () => updateCustomer(ctx, vendorId, id, request.body),
        );
        withEtag(reply, customer);
        return customer;
      },
    });
  }

  app.delete(
    "/customers/:id",
    {
      config: { scope: "customers:write", ifMatch: true },
      schema: {
        tags,
        operationId: "eraseCustomer",
        summary: "Erase a customer",
        description:
          "Erasure on the customer's request (the right to be forgotten). The customer, their appointments, the inquiries sent from their e-mail address and the stored event payloads about them are deleted; their orders stay for the shop's books with customerId and customer set to null and a new updatedAt. Emits customer.deleted, whose data is only the id. This cannot be undone.",
        params: IdParams,
        response: { 204: Type.Null({ description: "Erased" }) },
      },
    },
    async (request, reply) => {
      const { vendorId } = principalOf(request);
      const { id } = request.params;
      const etag = await underIfMatchDeleting(
        ctx,
        request,
        () => lockedCustomerJson(ctx, vendorId, id),
        () => eraseCustomer(ctx, vendorId, id),
      );
      if (etag) reply.header("etag", etag);
      return reply.code(204).send(null);
    },
  );
};
