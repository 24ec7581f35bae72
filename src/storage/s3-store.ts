// The S3 blob store (STORAGE_URL=s3://<bucket>?endpoint=<url>&region=<r>&forcePathStyle=true):
// any S3-compatible service (AWS, MinIO, R2, Ceph). Objects are private (no ACL is set): the
// service serves photos itself, through their unguessable links (src/modules/photos/).
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { Config } from "../config.ts";
import { assertBlobKey, type BlobStore } from "./blob.ts";

/**
 * Deletes in flight at once. One DeleteObject per key, not DeleteObjects: the batch call needs a
 * Content-MD5 or checksum header that S3-compatible stores disagree on, and an erasure deletes
 * tens of photos, not thousands.
 */
const DELETE_CONCURRENCY = 8;

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(storageUrl: string, credentials: Config["s3Credentials"]) {
    const url = new URL(storageUrl);
    this.bucket = url.hostname;
    // s3://bucket/some/prefix keeps every key under that prefix.
    this.prefix = url.pathname.replace(/^\/+|\/+$/g, "");
    const endpoint = url.searchParams.get("endpoint") ?? undefined;
    this.client = new S3Client({
      region: url.searchParams.get("region") ?? "us-east-1",
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: url.searchParams.get("forcePathStyle") === "true",
      ...(credentials ? { credentials } : {}),
      // Checksums only when the operation needs one: S3-compatible stores other than AWS refuse
      // the newer default trailers.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  private keyOf(key: string): string {
    assertBlobKey(key);
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.keyOf(key),
        Body: body,
        ContentType: contentType,
      }),
    );
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) }),
      );
      if (!answer.Body) return undefined;
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey") return undefined;
      throw error;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    // DeleteObject of a missing key succeeds (S3 answers 204), as the interface asks.
    for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY) {
      await Promise.all(
        keys
          .slice(i, i + DELETE_CONCURRENCY)
          .map((key) =>
            this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(key) })),
          ),
      );
    }
  }
}
