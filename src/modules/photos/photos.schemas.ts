import { Type } from "@sinclair/typebox";
import { Id } from "../../http/common-schemas.ts";
import { namedObject } from "../../http/schema-names.ts";

export const PhotoSchema = namedObject(
  "Photo",
  {
    id: Id,
    url: Type.String({
      format: "uri",
      description:
        "The photo as JPEG (EXIF removed, at most 2048 px on the long side), through an unguessable link that needs no credentials",
    }),
    thumbnailUrl: Type.String({
      format: "uri",
      description: "Its thumbnail, at most 400 px on the long side",
    }),
    width: Type.Integer({ description: "Width of the stored JPEG in pixels" }),
    height: Type.Integer({ description: "Height of the stored JPEG in pixels" }),
  },
  { description: "A stored progress photo; name its id in photoIds of a status update to show it" },
);
