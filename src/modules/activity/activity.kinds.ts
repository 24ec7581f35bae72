// What the activity log records (CONTRACT 10, "Members"), as data: each action's words for the
// dashboard, grouped by the kind of record it is about (the action's first part), which the
// Activity page filters by. An action names the record by id only (activity.repository.ts).

export const activityActions = {
  "order.created": "created order",
  "order.status_changed": "moved the status of order",
  "order.updated": "edited order",
  "customer.created": "created customer",
  "customer.updated": "edited customer",
  "customer.erased": "erased a customer",
  "customer.merged": "merged a duplicate into customer",
  "appointment.created": "created appointment",
  "appointment.updated": "changed appointment",
  "appointment.deleted": "deleted appointment",
  "inquiry.handled": "marked handled inquiry",
  "inquiry.converted": "turned into an order inquiry",
  "api_key.created": "created API key",
  "api_key.revoked": "revoked API key",
  "webhook.created": "created webhook",
  "webhook.updated": "changed webhook",
  "webhook.deleted": "deleted webhook",
  "webhook.secret_rotated": "rotated the secret of webhook",
  "webhook.test_sent": "sent a test event to webhook",
  "webhook.redelivered": "sent an event again to webhook",
  "webhook.recovered": "re-sent the failed and skipped deliveries of webhook",
  "application.created": "registered application",
  "application.secret_rotated": "rotated the client secret of application",
  "application.visibility_changed": "changed who may authorize application",
  "application.deleted": "deleted application",
  "application.authorized": "authorized application",
  "application.disconnected": "disconnected application",
  "settings.changed": "changed the shop settings",
  "settings.notification_email_requested": "asked to send the shop's notifications to a new address",
  "settings.notification_email_confirmed": "had the new address for the shop's notifications confirmed",
  "settings.notification_email_moved": "moved the shop's notifications to owner",
  "password.changed": "changed the sign-in password",
  "member.invited": "sent a team invitation",
  "member.role_changed": "changed the role of member",
  "member.removed": "removed member",
  "member.two_step_reset": "reset the two-step sign-in of member",
  "sandbox.reset": "reset the test data of the sandbox",
} as const;

export type ActivityAction = keyof typeof activityActions;

/** The kinds of record, in the order the filter offers them, with their names. */
export const activityKinds = {
  order: "Orders",
  customer: "Customers",
  appointment: "Appointments",
  inquiry: "Inquiries",
  api_key: "API keys",
  webhook: "Webhooks",
  application: "Applications",
  settings: "Settings",
  password: "Password",
  member: "Team",
  sandbox: "Sandbox",
} as const;

export type ActivityKind = keyof typeof activityKinds;

export function isActivityKind(value: string): value is ActivityKind {
  return Object.hasOwn(activityKinds, value);
}

export function isActivityAction(value: string): value is ActivityAction {
  return Object.hasOwn(activityActions, value);
}

/** The kind of record an action is about: its first part. */
export function kindOfAction(action: ActivityAction): ActivityKind {
  return action.slice(0, action.indexOf(".")) as ActivityKind;
}
