// Today: what the shop has to do today, for the dashboard's landing page. One statement
// (today.repository.ts); the page renders what it answers.
import type { ServiceContext } from "../../context.ts";
import type { OrderStatus, OrderType } from "../orders/orders.workflow.ts";
import { findToday } from "./today.repository.ts";

interface Section<T> {
  items: T[];
  count: number;
}

export interface TodayOrderLine {
  id: string;
  number: number;
  type: OrderType;
  status: OrderStatus;
  model: string | null;
  /** null once the customer was erased. */
  customerName: string | null;
  customerId?: string | null;
  pickupDate?: string | null;
  dueBackDate?: string | null;
  daysOverdue?: number;
  weddingDate?: string;
  rule?: { status: OrderStatus; daysBefore: number };
}

export interface TodayView {
  /** The shop's today, YYYY-MM-DD in its zone. */
  today: string;
  timeZone: string;
  /** The member's language, else the shop's. */
  language: string;
  appointments: Section<{
    id: string;
    type: string;
    status: string;
    date: string;
    duration: number;
    customerId: string;
    customerName: string;
    past: boolean;
  }>;
  fittings: Section<TodayOrderLine>;
  pickups: Section<TodayOrderLine>;
  dueBack: Section<TodayOrderLine>;
  overdue: Section<TodayOrderLine>;
  atRisk: Section<TodayOrderLine>;
  inquiries: Section<{ id: string; name: string; message: string; createdAt: string }>;
  /** Owners only: webhook endpoints disabled or failing (empty for staff). */
  integrations: Section<{ id: string; url: string; status: string; failingSince: string | null }>;
}

export async function getToday(
  ctx: ServiceContext,
  input: { vendorId: string; memberId: string; owner: boolean },
): Promise<TodayView> {
  return JSON.parse(await findToday(ctx.db, { ...input, now: ctx.now() })) as TodayView;
}
