// The Orders and Appointments tags describe their status workflows, as tables rendered from the
// transition tables.
import { appointmentTransitions } from "../modules/appointments/appointments.workflow.ts";
import { orderTransitions } from "../modules/orders/orders.workflow.ts";

function workflowTable(
  transitions: Readonly<Record<string, readonly string[]>>,
  note: (from: string, to: string) => string = () => "",
): string {
  const rows = Object.entries(transitions).map(
    ([from, to]) =>
      `| ${from} | ${to.length ? to.map((t) => `${t}${note(from, t)}`).join(", ") : "nothing: it is final"} |`,
  );
  return ["| From | Can move to |", "| --- | --- |", ...rows].join("\n");
}

export const orderWorkflowTable = workflowTable(orderTransitions, (from, to) =>
  from === "PICKED_UP" && to === "RETURNED" ? " (rentals only)" : "",
);
export const appointmentWorkflowTable = workflowTable(appointmentTransitions);

export const tagDescriptions = {
  Orders:
    "Orders and their status workflow. A new order is ORDERED. A move to the status the order already has is always allowed: it adds a message or photo to the history without changing the status. Every other move must be one of these:\n\n" +
    orderWorkflowTable,
  Appointments:
    "Appointments with customers. A new appointment is PROPOSED; its status moves as follows:\n\n" +
    appointmentWorkflowTable +
    "\n\nOnly a PROPOSED or CANCELLED appointment can be deleted.",
};
