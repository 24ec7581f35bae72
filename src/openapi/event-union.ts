// The events API's `Event` component: one variant per event type of the catalog.
import { eventCatalog, eventTypes } from "../modules/events/catalog.ts";
import { componentExample, hoist } from "./components.ts";
import { eventDataExamples, exampleIds } from "./examples.ts";
import { type Json, ref } from "./json.ts";

/** The events API's Event: one shape per event type, told apart by its `event` member. */
export function eventUnion(components: Json): Json {
  const variants: Json[] = [];
  const mapping: Record<string, string> = {};
  for (const type of eventTypes) {
    const name = `${type.replace(/(^|[._])(.)/g, (_m, _s, c: string) => c.toUpperCase())}Event`;
    const payload = hoist(eventCatalog[type].payload, components);
    components[name] = {
      type: "object",
      title: name,
      description: eventCatalog[type].description,
      required: ["id", "event", "data", "createdAt"],
      properties: {
        id: { type: "string", description: "The event id" },
        event: { type: "string", const: type },
        data: payload,
        createdAt: { type: "string", format: "date-time" },
      },
      examples: [
        { id: exampleIds.event, event: type, data: eventDataExamples[type], createdAt: exampleIds.moved },
      ],
    };
    variants.push(ref(name));
    mapping[type] = `#/components/schemas/${name}`;
  }
  return {
    title: "Event",
    description: "An event as its webhook deliveries carry it; `event` tells which payload `data` is",
    oneOf: variants,
    discriminator: { propertyName: "event", mapping },
    examples: [componentExample("Event")],
  };
}
