// The default blob store: files under DATA_DIR/blobs, readable by the service's user alone
// (directories 0700, files 0600, whatever the umask), written to a temporary name and renamed, so
// a reader never sees half a file and a crash leaves no torn one.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { assertBlobKey, type BlobStore } from "./blob.ts";

export class FileBlobStore implements BlobStore {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, "blobs");
  }

  private pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.root, ...key.split("/"));
  }

  async put(key: string, body: Buffer): Promise<void> {
    const file = this.pathOf(key);
    await this.makeDirs(path.dirname(file));
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await fs.writeFile(temporary, body, { mode: 0o600, flag: "wx" });
      await fs.chmod(temporary, 0o600);
      await fs.rename(temporary, file);
    } catch (error) {
      await fs.rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await fs.rm(this.pathOf(key), { force: true });
  }

  /** Each directory from the root down, made 0700 (mkdir's mode is masked by the umask: chmod). */
  private async makeDirs(dir: string): Promise<void> {
    // On PostgreSQL nothing else writes to DATA_DIR, so the first photo may be what makes it.
    await fs.mkdir(path.dirname(this.root), { recursive: true, mode: 0o700 });
    const relative = path.relative(this.root, dir);
    let current = this.root;
    for (const part of ["", ...(relative === "" ? [] : relative.split(path.sep))]) {
      current = part === "" ? current : path.join(current, part);
      try {
        await fs.mkdir(current, { mode: 0o700 });
        await fs.chmod(current, 0o700);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
  }
}
