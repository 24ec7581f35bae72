import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, id, ts, updatedAt } from "./columns.ts";

export const vendors = pgTable(
  "vendors",
  {
    id: id(),
    name: text("name").notNull(),
    /** The address the shop registered with (its first owner's); members sign in with their own (members.ts). */
    email: text("email").notNull(),
    /**
     * When the shop's e-mail was shown to be its owner's (the sign-up link came back). Until then
     * the shop's mail to addresses of its choosing is held, and only a confirmed address may be a
     * Reply-To (CONTRACT 12, src/mail/budget.ts). Shops made before this rule, and by the
     * operator's CLI (who vouches for the address), count as confirmed when made.
     */
    emailConfirmedAt: ts("email_confirmed_at").default(sql`now()`),
    /** Shop settings: where customers write to (the sign-in e-mail stays private). */
    contactEmail: text("contact_email"),
    /**
     * Where the shop's own mail goes (a new inquiry): an address an owner confirmed by a mailed link
     * (notification-email.service.ts), or a remaining owner's sign-in e-mail when the member it was
     * is removed or demoted. null: the founding owner's sign-in e-mail (`email`), as before.
     */
    notificationEmail: text("notification_email"),
    /** When the address was last moved off a removed or demoted member: Settings tells the owners. */
    notificationEmailMovedAt: ts("notification_email_moved_at"),
    /** IANA zone the dashboard and tracking page show times in and read typed dates in; the API stays UTC. */
    timeZone: text("time_zone").notNull().default("UTC"),
    /**
     * The shop's language (CONTRACT 12, Languages: a catalogue in src/i18n/catalogues): the
     * default for its members' dashboard and its customers' pages and mail.
     */
    language: text("language").notNull().default("en"),
    /**
     * The shop's postal address, lines separated by newlines: the brand of its mail and pages,
     * and the LOCATION of its appointments' calendar invitations (CONTRACT 12, Booking settings).
     */
    address: text("address"),
    /** The shop's brand on its customers' pages and mail (src/mail/templates/customer.ts): its phone, */
    phone: text("phone"),
    /** a logo as an https URL (null: none), an accent colour (#rrggbb, null: the default), */
    brandLogoUrl: text("brand_logo_url"),
    brandAccentColor: text("brand_accent_color"),
    /** and the signature that ends every customer mail (plain text, line breaks kept). */
    mailSignature: text("mail_signature"),
    /** Shop setting, off by default: e-mail customers about their orders and appointments (src/mail/). */
    customerMail: boolean("customer_mail").notNull().default(false),
    /** Team setting: every member signs in with a second step (TOTP); set up at next sign-in. */
    requireTwoStep: boolean("require_two_step").notNull().default(false),
    /** Shop setting: the shop's own website; its inquiry form may send the visitor back there. */
    website: text("website"),
    /**
     * Set on a shop's sandbox (CONTRACT 11): the shop it is the test copy of. A sandbox is a tenant
     * of its own (its keys are `vk_test_…`), so every vendor-scoped query isolates it; it cannot
     * sign in, sends no mail, and goes with its shop (cascade). At most one per shop.
     */
    /**
     * The shop's last order number (CONTRACT 12: per shop, from 1001). An order create increments it
     * in its own statement, so the row lock hands out numbers one at a time, without gaps, across
     * processes; orders_vendor_number_key backs it.
     */
    /**
     * Shop setting (CONTRACT 12, Dates of an order): days before the wedding each order type is due,
     * `{ BRIDAL_DRESS: 56, … }`; a type left out takes the default (src/modules/orders/order-dates.ts).
     */
    leadTimes: jsonb("lead_times").$type<Record<string, number>>(),
    /**
     * Shop setting: the wedding-date risk rules, `[{ status, daysBefore }]`; null: the defaults
     * (FITTING_READY 56 days, READY_FOR_PICKUP 14 days before the wedding).
     */
    riskRules: jsonb("risk_rules").$type<Array<{ status: string; daysBefore: number }>>(),
    lastOrderNumber: integer("last_order_number").notNull().default(1000),
    sandboxOf: text("sandbox_of").references((): AnyPgColumn => vendors.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("vendors_email_key").on(sql`lower(${t.email})`),
    uniqueIndex("vendors_sandbox_of_key").on(t.sandboxOf),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    vendorId: text("vendor_id")
      .notNull()
      .references(() => vendors.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the key; the key itself is shown once and never stored. */
    keyHash: text("key_hash").notNull(),
    /** First characters of the key, so a vendor can tell keys apart in the dashboard. */
    keyPrefix: text("key_prefix").notNull(),
    /** null = every scope; otherwise the scopes the key was restricted to at creation. */
    scopes: jsonb("scopes").$type<string[] | null>(),
    createdAt: createdAt(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_key_hash_key").on(t.keyHash), index("api_keys_vendor_idx").on(t.vendorId)],
);
