// An exclusive lock on a PGlite data directory. PGlite itself lets two processes open one
// directory and corrupt it, so the first process writes its pid to a lock file created with
// O_EXCL; a later opener refuses while that pid is alive, and takes over a dead process's lock
// (a SIGKILLed server must not block its own restart).
import fs from "node:fs";
import path from "node:path";

export interface DirectoryLock {
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory ${dir} is in use by another vendor-api process (pid ${pid}). ` +
        "PGlite allows one process at a time: stop that process first, or use PostgreSQL (DATABASE_URL) to run several.",
    );
    this.name = "DataDirLockedError";
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function acquireDirectoryLock(dir: string): DirectoryLock {
  const file = path.join(dir, "vendor-api.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(file, "wx");
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(file, "utf8") === String(process.pid)) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
      process.once("exit", release);
      return { release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(fs.readFileSync(file, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new DataDirLockedError(dir, pid);
      }
      if (pid === process.pid) throw new DataDirLockedError(dir, pid);
      fs.rmSync(file, { force: true }); // stale: its owner is gone
    }
  }
  throw new Error(`Could not lock ${dir}`);
}
