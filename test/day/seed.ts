// A shop's working day for the Today tests: one of each thing Today lists, made through the API
// (and the inquiry form's service), at the real clock, in a shop on UTC.
import { sql } from "drizzle-orm";
import { expect } from "vitest";
import { receiveInquiry } from "../../src/modules/inquiries/inquiries.service.ts";
import type { TestApp } from "../helpers/test-app.ts";

/** YYYY-MM-DD `days` from today (UTC, the test shop's zone). */
export const day = (days: number, now = new Date()) =>
  new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);

export interface SeededDay {
  appointmentId: string;
  pickupId: string;
  overdueId: string;
  atRiskId: string;
  inquiryId: string;
  webhookId: string;
}

async function move(t: TestApp, key: string, id: string, statuses: string[]) {
  for (const status of statuses) {
    const res = await t.api.put(`/api/vendor/orders/${id}/status`, { status }, { key });
    expect(res.status).toBe(200);
  }
}

/** One appointment today, a pickup due, an overdue rental, an at-risk order, an inquiry, a failing webhook. */
export async function seedDay(
  t: TestApp,
  key: string,
  vendorId: string,
  tag = "",
  index = 0,
): Promise<SeededDay> {
  const customer = await t.api.post("/api/vendor/customers", { name: `Clara Appointment${tag}` }, { key });
  expect(customer.status).toBe(201);
  // Later today when there is time left in the day, else earlier today: today either way.
  const now = Date.now();
  // Each seeded day of one shop a slot of its own (`index`), at most 5 × 10 minutes apart (a shop has at most 5 webhooks).
  const offset = (60 + index * 10) * 60_000;
  const at = new Date(new Date(now).getUTCHours() < 21 ? now + offset : now - offset);
  at.setUTCSeconds(0, 0);
  const appointment = await t.api.post(
    "/api/vendor/appointments",
    { customerId: customer.body.id, type: "FITTING", date: at.toISOString(), duration: 30 },
    { key },
  );
  expect(appointment.status).toBe(201);
  const pickup = await t.api.post(
    "/api/vendor/orders",
    { customerName: `Paula Pickup${tag}`, type: "SUIT" },
    { key },
  );
  await move(t, key, pickup.body.id, ["READY_FOR_PICKUP"]);
  const overdue = await t.api.post(
    "/api/vendor/orders",
    { customerName: `Olga Overdue${tag}`, type: "RENTAL", pickupDate: day(-6), dueBackDate: day(-2) },
    { key },
  );
  expect(overdue.status).toBe(201);
  await move(t, key, overdue.body.id, ["READY_FOR_PICKUP", "PICKED_UP"]);
  const atRisk = await t.api.post(
    "/api/vendor/orders",
    { customerName: `Rita Risk${tag}`, type: "BRIDAL_DRESS", weddingDate: day(30), model: "Aurora" },
    { key },
  );
  expect(atRisk.status).toBe(201);
  const inquiry = await receiveInquiry(t.ctx, vendorId, {
    name: `Ines Inquiry${tag}`,
    email: "ines@example.test",
    message: "Do you have the Aurora in ivory?",
  });
  const hook = await t.api.post(
    "/api/vendor/webhooks",
    { url: `https://hooks.example.com/today/${index}`, events: ["order.created"] },
    { key },
  );
  expect(hook.status).toBe(201);
  await t.ctx.db.execute(
    sql`update webhooks set failing_since = now() - interval '2 hours', consecutive_failures = 7 where id = ${hook.body.id}`,
  );
  return {
    appointmentId: appointment.body.id,
    pickupId: pickup.body.id,
    overdueId: overdue.body.id,
    atRiskId: atRisk.body.id,
    inquiryId: inquiry.id,
    webhookId: hook.body.id,
  };
}
