import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Config } from "../../config.ts";
import type { ServiceContext } from "../../context.ts";
import { principalOf } from "../../http/authenticate.ts";
import { IdParams } from "../../http/common-schemas.ts";
import { created } from "../../http/created.ts";
import { assertDeclaredSize, notMultipart, readFilePart, uploadLimits } from "./multipart-file.ts";
import { PhotoSchema } from "./photos.schemas.ts";
import { assertPhotoUploadAllowed, type PhotoSettings, uploadPhoto } from "./photos.service.ts";

export const photoRoutes: FastifyPluginAsyncTypebox<{ ctx: ServiceContext; config: Config }> = async (
  app,
  { ctx, config },
) => {
  const settings: PhotoSettings = { publicUrl: config.publicUrl, quotaBytes: config.photoQuotaBytes };
  // This scope alone reads multipart bodies; any other type is refused before it is read.
  app.removeAllContentTypeParsers();
  await app.register(multipart, { limits: uploadLimits, throwFileSizeLimit: true });
  app.addContentTypeParser("*", (_request, _payload, done) => done(notMultipart(), undefined));

  app.post(
    "/orders/:id/photos",
    {
      config: { scope: "orders:write", errors: ["storage_quota_exceeded"] },
      schema: {
        tags: ["Orders"],
        operationId: "uploadOrderPhoto",
        summary: "Upload a progress photo",
        description:
          "Stores one photo of the order, sent as multipart/form-data with one part named `file` (at most 15 MB; JPEG, PNG, WebP, HEIF, AVIF, GIF or TIFF, recognised from its bytes). It is turned upright, re-encoded as JPEG at most 2048 px on the long side with a 400 px thumbnail, and every metadata field (EXIF with GPS, XMP, IPTC, ICC) is removed. Name its id in `photoIds` of a status update to show it to the customer. A shop's photos take at most its storage quota (1 GiB by default): past it, 409 storage_quota_exceeded.",
        params: IdParams,
        consumes: ["multipart/form-data"],
        response: { 201: PhotoSchema },
      },
    },
    async (request, reply) => {
      const { vendorId } = principalOf(request);
      const { id } = request.params;
      assertDeclaredSize(request);
      await assertPhotoUploadAllowed(ctx, settings, vendorId, id);
      const bytes = await readFilePart(request);
      const photo = await uploadPhoto(ctx, settings, vendorId, id, bytes);
      return created(reply, photo.url).send(photo);
    },
  );
};
