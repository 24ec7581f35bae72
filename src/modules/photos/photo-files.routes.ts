// The photos' own links, /photos/<token>/full.jpg and /photos/<token>/thumb.jpg (CONTRACT 12):
// no credentials (the bride's tracking page and her mail show them), the 256-bit token is the
// credential. Served as what they are and nothing else: image/jpeg, nosniff, no script.
// Cached long by the browser that fetched them (the bytes behind a token never change), but
// `private`: a shared cache or CDN would keep a copy that an erasure could not reach.
import type { FastifyInstance } from "fastify";
import type { ServiceContext } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { type PhotoSize, photoByToken } from "./photos.service.ts";

const sizes: Record<string, PhotoSize> = { "full.jpg": "full", "thumb.jpg": "thumb" };

export async function photoFileRoutes(app: FastifyInstance, { ctx }: { ctx: ServiceContext }): Promise<void> {
  app.get<{ Params: { token: string; file: string } }>(
    "/photos/:token/:file",
    { schema: { hide: true } },
    async (request, reply) => {
      const size = sizes[request.params.file];
      const bytes = size ? await photoByToken(ctx, request.params.token, size) : undefined;
      if (!bytes) throw notFound("Photo");
      return reply
        .header("content-type", "image/jpeg")
        .header("x-content-type-options", "nosniff")
        .header("cache-control", "private, max-age=31536000, immutable")
        .header("content-security-policy", "default-src 'none'; sandbox")
        .header("cross-origin-resource-policy", "cross-origin")
        .header("referrer-policy", "no-referrer")
        .header("x-robots-tag", "noindex")
        .send(bytes);
    },
  );
}
