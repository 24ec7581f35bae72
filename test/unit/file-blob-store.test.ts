// The default blob store (src/storage/file-store.ts): it makes DATA_DIR when nothing else has
// (on PostgreSQL no database file lives there), and everything it writes is its user's alone.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FileBlobStore } from "../../src/storage/file-store.ts";

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "blob-store-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe("FileBlobStore", () => {
  it("stores into a DATA_DIR that does not exist yet, every directory 0700 and the file 0600", async () => {
    const dataDir = path.join(scratch, "not", "made", "yet");
    const store = new FileBlobStore(dataDir);
    await store.put("photos/v1/abc/full.jpg", Buffer.from("jpeg bytes"));
    expect((await store.get("photos/v1/abc/full.jpg"))?.toString()).toBe("jpeg bytes");
    expect(mode(dataDir)).toBe(0o700);
    for (const dir of ["blobs", "blobs/photos", "blobs/photos/v1", "blobs/photos/v1/abc"]) {
      expect(mode(path.join(dataDir, dir)), dir).toBe(0o700);
    }
    expect(mode(path.join(dataDir, "blobs/photos/v1/abc/full.jpg"))).toBe(0o600);
    await store.delete(["photos/v1/abc/full.jpg"]);
    expect(await store.get("photos/v1/abc/full.jpg")).toBeUndefined();
  });
});
