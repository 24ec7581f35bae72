// Where the service keeps files too large for the database (the shops' photos, CONTRACT 12): one
// interface, chosen by STORAGE_URL. `file:` is a directory under DATA_DIR (the default: nothing to
// run besides the service); `s3://` any S3-compatible store (production: several API processes on
// several hosts see the same files). Rules every store keeps:
// - a key is a relative path of safe characters (`photos/<vendor>/<id>.jpg`), never `..`;
// - `put` replaces, `get` answers undefined for a key that is not there;
// - `delete` of a key that is not there is no error (erasure retries must be able to repeat it).
import type { Config } from "../config.ts";
import type { BlobStore } from "./blob.ts";
import { FileBlobStore } from "./file-store.ts";
import { S3BlobStore } from "./s3-store.ts";

export type { BlobStore } from "./blob.ts";

/** One store per configuration (the S3 client keeps its connections): opened on first use. */
const opened = new WeakMap<Config, BlobStore>();

export function blobStoreFor(config: Config): BlobStore {
  let store = opened.get(config);
  if (!store) {
    store = config.storageUrl.startsWith("s3:")
      ? new S3BlobStore(config.storageUrl, config.s3Credentials)
      : new FileBlobStore(config.dataDir);
    opened.set(config, store);
  }
  return store;
}
