// Repository writes on vendor-owned rows state their tenant (STYLE 3): called with another
// vendor's id they change nothing, even when a caller forgot to look the row up first.
import { describe, expect, it } from "vitest";
import { listApiKeys, touchApiKey } from "../../src/modules/api-keys/api-keys.repository.ts";
import { createApiKey } from "../../src/modules/api-keys/api-keys.service.ts";
import {
  deleteAppointmentRow,
  findAppointmentById,
  updateAppointmentRow,
} from "../../src/modules/appointments/appointments.repository.ts";
import { createAppointment } from "../../src/modules/appointments/appointments.service.ts";
import { findCustomerById, updateCustomerRow } from "../../src/modules/customers/customers.repository.ts";
import { createCustomer } from "../../src/modules/customers/customers.service.ts";
import { createVendor } from "../helpers/factories.ts";
import { useTestApp } from "../helpers/test-app.ts";

const t = useTestApp();

describe("repository writes with another vendor's id change nothing", () => {
  it("api keys: last-use bookkeeping", async () => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const { row } = await createApiKey(t.ctx, { vendorId: owner.id, name: "k" });
    await touchApiKey(t.ctx.db, other.id, row.id, new Date());
    const [key] = await listApiKeys(t.ctx.db, owner.id);
    expect(key?.lastUsedAt).toBeNull();
  });

  it("customers: update", async () => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const customer = await createCustomer(t.ctx, owner.id, { name: "Ana" });
    await expect(updateCustomerRow(t.ctx.db, other.id, customer.id, { name: "Taken" })).rejects.toThrow();
    expect((await findCustomerById(t.ctx.db, owner.id, customer.id))?.name).toBe("Ana");
  });

  it("appointments: update and delete", async () => {
    const owner = await createVendor(t.ctx);
    const other = await createVendor(t.ctx);
    const customer = await createCustomer(t.ctx, owner.id, { name: "Ana" });
    const appointment = await createAppointment(t.ctx, owner.id, {
      customerId: customer.id,
      type: "FITTING",
      date: "2027-03-01T10:00:00.000Z",
      duration: 60,
    });
    await expect(
      updateAppointmentRow(t.ctx.db, other.id, appointment.id, { notes: "moved" }),
    ).rejects.toThrow();
    await deleteAppointmentRow(t.ctx.db, other.id, appointment.id);
    const still = await findAppointmentById(t.ctx.db, owner.id, appointment.id);
    expect(still?.id).toBe(appointment.id);
    expect(still?.notes ?? null).toBe(appointment.notes ?? null);
  });
});
