import { Type } from "@sinclair/typebox";
import { Id, Timestamp } from "../../http/common-schemas.ts";
import { LanguageSchema } from "../../http/language.ts";
import { namedObject } from "../../http/schema-names.ts";

export const ProfileSchema = namedObject(
  "Profile",
  {
    id: Id,
    name: Type.String(),
    email: Type.String({ format: "email", description: "The owner's sign-in e-mail" }),
    createdAt: Timestamp,
    timeZone: Type.String({
      description: "The shop's IANA time zone (its calendar days; the API's instants stay UTC)",
      examples: ["Europe/Lisbon"],
    }),
    language: LanguageSchema,
    contactEmail: Type.Union([Type.String({ format: "email" }), Type.Null()], {
      description: "Where the shop's customers write to, as set in the dashboard; null when not set",
    }),
    livemode: Type.Boolean({
      description:
        "false when the credential is a test key (`vk_test_…`) acting for the shop's sandbox: `id` is then the sandbox's, and every other field the shop's",
    }),
  },
  { description: "The vendor the credential acts for" },
);
