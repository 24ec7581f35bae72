// The S3 blob store (STORAGE_URL=s3://<bucket>?endpoint=<url>&region=<r>&forcePathStyle=true):
// any S3-compatible service (AWS, MinIO, R2, Ceph). Objects are private (no ACL is set): the
// service serves photos itself, through their unguessable links (src/modules/photos/).
import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import type { Config } from "../config.ts";
import { assertBlobKey, type BlobStore } from "./blob.ts";

/**
 * Deletes in flight at once. One DeleteObject per key, not DeleteObjects: the batch call needs a
 * Content-MD5 or checksum header that S3-compatible stores disagree on, and an erasure deletes
 * tens of photos, not thousands.
 */
const DELETE_CONCURRENCY = 8;

type S3Sdk = typeof import("@aws-sdk/client-s3");
let sdkLoaded: Promise<S3Sdk> | undefined;

/**
 * The SDK is loaded at the first call to the store, not at start (docs/decisions/0016): STORAGE_URL
 * is checked when the configuration is read (src/config/rules.ts), and the client made from it
 * neither connects nor checks anything before its first request.
 */
function loadSdk(): Promise<S3Sdk> {
  sdkLoaded ??= import("@aws-sdk/client-s3");
  return sdkLoaded;
}

export class S3BlobStore implements BlobStore {
  private readonly options: S3ClientConfig;
  private readonly bucket: string;
  private readonly prefix: string;
  private opened: Promise<{ sdk: S3Sdk; client: S3Client }> | undefined;

  constructor(storageUrl: string, credentials: Config["s3Credentials"]) {
    const url = new URL(storageUrl);
    this.bucket = url.hostname;
    // s3://bucket/some/prefix keeps every key under that prefix.
    this.prefix = url.pathname.replace(/^\/+|\/+$/g, "");
    const endpoint = url.searchParams.get("endpoint") ?? undefined;
    this.options = {
      region: url.searchParams.get("region") ?? "us-east-1",
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: url.searchParams.get("forcePathStyle") === "true",
      ...(credentials ? { credentials } : {}),
      // Checksums only when the operation needs one: S3-compatible stores other than AWS refuse
      // the newer default trailers.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    };
  }

  /** The SDK and one client for this store, made at the first call and kept (its connections). */
  private open(): Promise<{ sdk: S3Sdk; client: S3Client }> {
    this.opened ??= loadSdk().then((sdk) => ({ sdk, client: new sdk.S3Client(this.options) }));
    return this.opened;
  }

  private keyOf(key: string): string {
    assertBlobKey(key);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const Key = this.keyOf(key);
    const { sdk, client } = await this.open();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.bucket,
        Key,
        Body: body,
        ContentType: contentType,
      }),
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    const Key = this.keyOf(key);
    const { sdk, client } = await this.open();
    try {
      const answer = await client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key }));
      if (!answer.Body) return undefined;
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (error) {
      if (error instanceof sdk.NoSuchKey || (error as { name?: string }).name === "NoSuchKey")
        return undefined;
      throw error;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    // DeleteObject of a missing key succeeds (S3 answers 204), as the interface asks.
    if (keys.length === 0) return;
    const { sdk, client } = await this.open();
    for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY) {
      await Promise.all(
        keys
          .slice(i, i + DELETE_CONCURRENCY)
          .map((key) =>
            client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })),
          ),
      );
    }
  }
}
