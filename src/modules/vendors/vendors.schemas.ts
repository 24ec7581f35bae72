import { Type } from "@sinclair/typebox";
import { Id, Timestamp } from "../../http/common-schemas.ts";

export const ProfileSchema = Type.Object(
  { id: Id, name: Type.String(), email: Type.String({ format: "email" }), createdAt: Timestamp },
  { description: "The vendor the credential acts for" },
);
