// Everything under DATA_DIR is this account's alone: directories 0700, files 0600, whatever the
// umask. PGlite writes its files with the process's umask (0755 directories and 0644-0666 files
// under the usual 022), and its WAL and heap hold customers, password hashes and webhook secrets:
// any local account could read them, or rewrite the database around the 0700 control socket.
// So, at start: the umask becomes 077 for whatever is written later (new WAL segments, relation
// files, the control socket), and what is already there is tightened, or the start is refused.
import fs from "node:fs";
import path from "node:path";
import { isMainThread } from "node:worker_threads";

export class DataDirPermissionError extends Error {
  constructor(file: string, cause: unknown) {
    super(
      `${file} is open to other local accounts and its mode could not be restricted (${(cause as Error).message}). ` +
        "DATA_DIR must belong to the account that runs vendor-api.",
    );
    this.name = "DataDirPermissionError";
  }
}

/** Creates `dir` if needed and leaves nothing under it readable or writable by group or others. */
export function restrictDataDir(dir: string): void {
  // process.umask cannot be set from a worker thread (tests open in-memory databases there).
  if (isMainThread) process.umask(0o077);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  restrict(dir);
}

function restrict(file: string): void {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!stat || stat.isSymbolicLink()) return; // a link's own mode means nothing; its target is not ours to change
  const wanted = stat.isDirectory() ? 0o700 : 0o600;
  if ((stat.mode & 0o777) !== wanted) {
    try {
      fs.chmodSync(file, wanted);
    } catch (err) {
      throw new DataDirPermissionError(file, err);
    }
  }
  if (stat.isDirectory()) for (const name of fs.readdirSync(file)) restrict(path.join(file, name));
}
