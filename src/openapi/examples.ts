// Realistic examples for the document: one bridal shop's data (Bella Bridal, its customer Maria
// Silva and her Aurora gown), consistent across resources so a reader can follow one story.
const shopId = "h6y2k8m1q9w3e5r7t0u4i8o2";
const maria = "c7k2m9p4x1z8q3w6e5r0t2y4";
const order = "o3n8b5v2c9x6z1m4l7k0j2h5";
const fitting = "a1s4d7f0g3h6j9k2l5z8x1c4";
const hook = "w9e2r5t8y1u4i7o0p3a6s9d2";
const delivery = "d4f7g0h3j6k9l2z5x8c1v4b7";
const event = "e8r1t4y7u0i3o6p9a2s5d8f1";
const inquiry = "i2o5p8a1s4d7f0g3h6j9k2l5";

const created = "2026-11-02T10:15:00.000Z";
const moved = "2026-11-09T14:30:00.000Z";

const mariaJson = {
  id: maria,
  name: "Maria Silva",
  email: "maria.silva@example.com",
  phone: "+351 912 345 678",
  weddingDate: "2027-06-12",
  language: "pt",
  notes: "Prefers Saturday appointments",
  measurements: { bust: 86, waist: 68, hips: 94, height: 168 },
  preferences: { silhouette: "A-line", fabric: "lace", colors: ["ivory", "champagne"] },
  externalId: "pos-c-20931",
  metadata: { loyaltyTier: "gold" },
  createdAt: created,
  updatedAt: created,
};

const orderUpdate = {
  status: "IN_PRODUCTION",
  message: "Your gown is being cut from the lace you chose",
  imageUrl: "https://photos.bellabridal.example/orders/aurora-cutting.jpg",
  photos: [
    {
      id: "q2v7mwt1bz0k8c4xh5n3e9pd",
      url: "https://vendor-api.example/photos/Zk3xQ9vTq0b5nW2mR7yJc8LhA4sE1fUo6dKpGiVtXwN/full.jpg",
      thumbnailUrl: "https://vendor-api.example/photos/Zk3xQ9vTq0b5nW2mR7yJc8LhA4sE1fUo6dKpGiVtXwN/thumb.jpg",
    },
  ],
  createdAt: moved,
};

const orderJson = {
  id: order,
  number: 1042,
  type: "BRIDAL_DRESS",
  status: "IN_PRODUCTION",
  model: "Aurora",
  size: "38",
  color: "Ivory",
  description: "A-line gown with a chapel train",
  specialRequests: "Add lace sleeves",
  // Maria's wedding date less the 56 days of lead time for a bridal dress.
  dueDate: "2027-04-17",
  pickupDate: null,
  dueBackDate: null,
  customerId: maria,
  customer: { name: "Maria Silva", email: "maria.silva@example.com" },
  externalId: "pos-4711",
  metadata: { till: "2" },
  updates: [
    { status: "ORDERED", message: "Order created", imageUrl: null, photos: [], createdAt: created },
    orderUpdate,
  ],
  createdAt: created,
  updatedAt: moved,
};

const appointmentJson = {
  id: fitting,
  customerId: maria,
  orderId: order,
  type: "FITTING",
  status: "CONFIRMED",
  date: "2027-03-20T10:00:00.000Z",
  duration: 60,
  notes: "First fitting; bring the wedding shoes",
  externalId: null,
  metadata: {},
  createdAt: moved,
  updatedAt: moved,
};

const inquiryJson = {
  id: inquiry,
  name: "Ana Costa",
  email: "ana.costa@example.com",
  phone: "+351 934 567 890",
  weddingDate: "2027-09-04",
  message: "Do you have the Aurora gown in size 42 to try on?",
  createdAt: moved,
};

const webhookJson = {
  id: hook,
  url: "https://pos.bellabridal.example/hooks/vendor-api",
  events: ["order.created", "order.status_changed", "appointment.confirmed"],
  status: "ACTIVE",
  disabledReason: null,
  createdAt: created,
  updatedAt: created,
};

const attempt = {
  attempt: 1,
  createdAt: moved,
  statusCode: 200,
  durationMs: 84,
  error: null,
  responseBody: '{"received":true}',
};

const deliveryJson = {
  id: delivery,
  webhookId: hook,
  eventId: event,
  event: "order.status_changed",
  status: "SUCCEEDED",
  attemptCount: 1,
  nextAttemptAt: null,
  redeliveryOf: null,
  createdAt: moved,
  updatedAt: moved,
  attempts: [attempt],
};

const statusChange = {
  id: order,
  number: orderJson.number,
  status: "IN_PRODUCTION",
  previousStatus: "ORDERED",
  customerId: maria,
  externalId: orderJson.externalId,
  metadata: orderJson.metadata,
  updatedAt: moved,
  message: orderUpdate.message,
  imageUrl: orderUpdate.imageUrl,
  photos: orderUpdate.photos,
};

const weekday = [
  { from: "10:00", to: "13:00" },
  { from: "14:00", to: "19:00" },
];
const bookingSettings = {
  timeZone: "Europe/Lisbon",
  address: "Rua Garrett 12\n1200-203 Lisboa",
  openingHours: {
    mon: [],
    tue: weekday,
    wed: weekday,
    thu: weekday,
    fri: weekday,
    sat: [{ from: "10:00", to: "17:00" }],
    sun: [],
  },
  closedDates: ["2026-12-24", "2026-12-25"],
  instantConfirmation: false,
  reminderMinutesBefore: 1440,
  rescheduleCutoffHours: 24,
  types: {
    CONSULTATION: {
      online: true,
      duration: 90,
      bufferAfter: 15,
      minNoticeMinutes: 1440,
      maxDaysAhead: 90,
      capacity: 2,
    },
    FITTING: {
      online: true,
      duration: 60,
      bufferAfter: 15,
      minNoticeMinutes: 1440,
      maxDaysAhead: 120,
      capacity: 2,
    },
    PICKUP: {
      online: false,
      duration: 30,
      bufferAfter: 0,
      minNoticeMinutes: 240,
      maxDaysAhead: 60,
      capacity: 1,
    },
  },
};

/** One example per named schema of the document. */
export const schemaExamples: Record<string, unknown> = {
  BookingSettings: bookingSettings,
  UpdateBookingSettings: {
    openingHours: { sat: [{ from: "09:00", to: "16:00" }] },
    types: { CONSULTATION: { capacity: 3 } },
  },
  Availability: {
    timeZone: "Europe/Lisbon",
    type: "CONSULTATION",
    duration: 90,
    slots: ["2026-12-08T10:00:00.000Z", "2026-12-08T10:30:00.000Z", "2026-12-08T14:00:00.000Z"],
  },
  Booking: {
    type: "CONSULTATION",
    start: "2026-12-08T10:00:00Z",
    name: "Lena Schmidt",
    email: "lena.schmidt@example.com",
    phone: "+49 30 1234567",
    weddingDate: "2027-08-14",
    language: "de",
    notes: "Looking for an A-line gown",
  },
  Booked: { id: "b7k2m9p4q1r8s5t3v6w0x2y4", status: "PROPOSED", start: "2026-12-08T10:00:00.000Z" },
  Order: orderJson,
  OrderUpdate: orderUpdate,
  OrderType: "BRIDAL_DRESS",
  OrderStatus: "IN_PRODUCTION",
  OrderStatusChange: statusChange,
  OrderList: { orders: [orderJson], nextCursor: null },
  CreateOrder: {
    customerName: "Maria Silva",
    customerEmail: "maria.silva@example.com",
    customerPhone: "+351 912 345 678",
    weddingDate: "2027-06-12",
    type: "BRIDAL_DRESS",
    model: "Aurora",
    size: "38",
    color: "Ivory",
    description: "A-line gown with a chapel train",
    specialRequests: "Add lace sleeves",
  },
  UpdateOrder: { size: "40", specialRequests: null },
  UpdateOrderStatus: {
    status: "IN_PRODUCTION",
    message: orderUpdate.message,
    photoIds: orderUpdate.photos.map((p) => p.id),
  },
  Photo: { ...orderUpdate.photos[0], width: 2048, height: 1536 },
  EntryPhoto: orderUpdate.photos[0],
  OrderStatusResult: { id: order, status: "IN_PRODUCTION" },
  Customer: mariaJson,
  CustomerWithCounts: { ...mariaJson, counts: { orders: 1, appointments: 2 } },
  CustomerList: { customers: [mariaJson], nextCursor: null },
  CreateCustomer: {
    name: "Maria Silva",
    email: "maria.silva@example.com",
    phone: "+351 912 345 678",
    weddingDate: "2027-06-12",
    notes: "Prefers Saturday appointments",
    measurements: mariaJson.measurements,
    preferences: mariaJson.preferences,
    externalId: mariaJson.externalId,
  },
  UpdateCustomer: { phone: "+351 913 000 111", notes: null, metadata: { loyaltyTier: "gold" } },
  Tombstone: { id: fitting, deleted: true, updatedAt: moved },
  SyncChecksum: {
    resource: "appointments",
    until: "2026-12-02T09:30:00.000Z",
    days: [
      {
        day: moved.slice(0, 10),
        count: 1,
        hash: "5b7c0c4c7d7e1b9a0f0e3f52c1a9d7e4b8f2a6c3d9e0f1a2b3c4d5e6f7a8b9c0",
      },
    ],
  },
  MergeCustomers: { from: "k5j8h1g4f7d0s3a6p9o2i5u8" },
  Appointment: appointmentJson,
  AppointmentType: "FITTING",
  AppointmentStatus: "CONFIRMED",
  AppointmentList: { appointments: [appointmentJson], nextCursor: null },
  CreateAppointment: {
    customerId: maria,
    orderId: order,
    type: "FITTING",
    date: "2027-03-20T11:00:00+01:00",
    duration: 60,
    notes: "First fitting; bring the wedding shoes",
  },
  UpdateAppointment: { status: "CONFIRMED" },
  Inquiry: inquiryJson,
  InquiryList: { inquiries: [inquiryJson], nextCursor: null },
  CreateInquiry: {
    name: "Ana Costa",
    email: "ana.costa@example.com",
    phone: "+351 934 567 890",
    weddingDate: "2027-09-04",
    message: inquiryJson.message,
  },
  InquiryReceipt: { id: inquiry },
  Webhook: webhookJson,
  WebhookWithSecret: { ...webhookJson, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+x3c9Pq3wR0=" },
  WebhookList: { webhooks: [webhookJson], nextCursor: null },
  CreateWebhook: { url: webhookJson.url, events: webhookJson.events },
  UpdateWebhook: { status: "ACTIVE" },
  RotateSecret: { overlapSeconds: 86400 },
  RotatedSecret: {
    id: hook,
    secret: "whsec_3kJ8hG5fD2sA9pO6iU1yT4rE7wQ0zX3cVb2NmQ4LpR8=",
    previousSecretExpiresAt: "2026-11-10T14:30:00.000Z",
  },
  WebhookTestResult: { eventId: event },
  Delivery: deliveryJson,
  DeliveryAttempt: attempt,
  DeliveryList: { deliveries: [deliveryJson], nextCursor: null },
  QueuedDelivery: { deliveryId: delivery, eventId: event },
  Recover: { since: "2026-11-08T00:00:00.000Z", until: "2026-11-09T00:00:00.000Z" },
  RecoverResult: { count: 3 },
  Event: { id: event, event: "order.status_changed", data: statusChange, createdAt: moved },
  EventList: {
    events: [{ id: event, event: "order.status_changed", data: statusChange, createdAt: moved }],
    nextCursor: null,
  },
  Profile: {
    id: shopId,
    name: "Bella Bridal",
    email: "owner@bellabridal.example",
    createdAt: created,
    timeZone: "Europe/Lisbon",
    language: "pt",
    contactEmail: "hello@bellabridal.example",
    livemode: true,
  },
  WebhookTestPayload: { webhookId: hook, message: "A test delivery from vendor-api" },
};

/** The `data` of each event in the webhooks section. */
export const eventDataExamples: Record<string, unknown> = {
  "order.created": {
    ...orderJson,
    status: "ORDERED",
    updates: orderJson.updates.slice(0, 1),
    updatedAt: created,
  },
  "order.updated": { ...orderJson, size: "40" },
  "order.status_changed": statusChange,
  "order.at_risk": { order: orderJson, rule: { status: "FITTING_READY", daysBefore: 56 } },
  "order.overdue": {
    order: {
      ...orderJson,
      type: "RENTAL",
      status: "PICKED_UP",
      pickupDate: "2026-11-20",
      dueBackDate: "2026-11-30",
    },
  },
  "customer.created": mariaJson,
  "customer.updated": { ...mariaJson, phone: "+351 912 345 679" },
  "customer.deleted": { id: maria },
  "appointment.created": { ...appointmentJson, status: "PROPOSED" },
  "appointment.updated": { ...appointmentJson, duration: 90 },
  "appointment.confirmed": appointmentJson,
  "appointment.completed": { ...appointmentJson, status: "COMPLETED" },
  "appointment.cancelled": { ...appointmentJson, status: "CANCELLED" },
  "appointment.deleted": { id: fitting },
  "inquiry.received": inquiryJson,
  "webhook.test": { webhookId: hook, message: "A test delivery from vendor-api" },
};

export const exampleIds = { shopId, maria, order, fitting, hook, delivery, event, inquiry, moved };
