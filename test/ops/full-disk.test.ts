// A nearly full disk under PGlite's DATA_DIR. Without a guard, writes filled the
// WAL and PGlite spun at 100% CPU in XLogFlush: no answer, SIGTERM ignored, freeing space did not
// help. Here DATA_DIR is on a small tmpfs of the test's own (mounted as root; the test skips
// otherwise, and disk-space.test.ts covers the guard with a probe of its own): keyed writes
// run until the guard refuses them with 503 + Retry-After (the disk never fills), reads go on,
// /ready and the log say why; freeing space lets writes in again, and SIGTERM exits 0.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { type ApiResponse, apiClient } from "../helpers/api-client.ts";
import { migratedDataDir } from "../helpers/child-build.ts";
import { freePort } from "../helpers/ports.ts";
import {
  childEnv,
  outputMatching,
  type ServerProcess,
  startService,
  vendorWithKeyByCli,
} from "../helpers/processes.ts";
import { tempDir } from "../helpers/temp-dir.ts";
import { eventually } from "../helpers/webhook-receiver.ts";

const run = promisify(execFile);
const canMount = process.getuid?.() === 0 && process.platform === "linux";
const MB = 1024 * 1024;
const TMPFS_MB = 128;
const MIN_FREE_MB = 40;

let mountPoint = "";
let mounted = false;
let service: ServerProcess | undefined;
const copies: string[] = [];

afterAll(async () => {
  if (service && service.child.exitCode === null) service.child.kill("SIGKILL");
  await service?.exited;
  if (mounted) await run("umount", [mountPoint]).catch(() => run("umount", ["-l", mountPoint]));
  if (mountPoint) fs.rmSync(mountPoint, { recursive: true, force: true });
  for (const dir of copies) fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

const freeBytes = (dir: string) => {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
};

describe.skipIf(!canMount)("PGlite on a nearly full disk (private tmpfs)", () => {
  if (!canMount)
    console.warn("skipped: mounting a tmpfs needs root on Linux (disk-space.test.ts still runs)");

  it("writes are refused with 503 before the disk fills, reads go on, freeing space lets them in, SIGTERM exits 0", async () => {
    mountPoint = tempDir("full-disk");
    await run("mount", ["-t", "tmpfs", "-o", `size=${TMPFS_MB}m,mode=0700`, "tmpfs", mountPoint]);
    mounted = true;
    const template = await migratedDataDir("full-disk-template");
    copies.push(template);
    const dataDir = path.join(mountPoint, "data");
    fs.cpSync(template, dataDir, { recursive: true });

    const port = await freePort();
    const env = childEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      DISK_MIN_FREE_MB: String(MIN_FREE_MB),
      LOG_LEVEL: "warn",
    });
    service = await startService(env);
    const { key } = await vendorWithKeyByCli(env, "FullDisk");
    const api = apiClient(`http://127.0.0.1:${port}`);

    // Leave 1 MB above the threshold (which itself is more than a 16 MB WAL segment): the writes
    // below cross it, gradually or at a segment switch.
    const filler = path.join(mountPoint, "filler");
    const leave = (MIN_FREE_MB + 1) * MB;
    fs.writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes(mountPoint) - leave)));

    // Keyed writes with large bodies, four at a time, until the guard refuses (bounded).
    const description = "x".repeat(1_900);
    const outcomes = new Map<number, number>();
    let refused: ApiResponse | undefined;
    let n = 0;
    const deadline = Date.now() + 150_000;
    const writer = async () => {
      while (!refused && Date.now() < deadline) {
        const res = await api.post(
          "/api/vendor/orders",
          { customerName: "Disk", type: "SUIT", description, specialRequests: description },
          { key, headers: { "idempotency-key": `disk-${n++}` } },
        );
        outcomes.set(res.status, (outcomes.get(res.status) ?? 0) + 1);
        if (res.status === 503) refused = res;
        else if (res.status !== 201) throw new Error(`unexpected ${res.status}: ${res.text}`);
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    console.log(
      `full disk: ${JSON.stringify(Object.fromEntries(outcomes))}; free at refusal ${Math.round(freeBytes(mountPoint) / MB)} MB`,
    );
    expect(refused, "the guard never refused a write").toBeDefined();
    const r = refused as ApiResponse;
    expect(r.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe("unavailable");
    expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
    // The disk did not fill: PGlite still has room (and answers).
    expect(freeBytes(mountPoint)).toBeGreaterThan(8 * MB);
    expect((await api.get("/api/vendor/orders?limit=1", { key })).status).toBe(200);
    const ready = await api.get("/ready");
    expect(ready.status).toBe(503);
    expect(ready.body.detail).toMatch(/disk/i);
    await outputMatching(service, /disk space low under DATA_DIR: writes refused/);

    // An operator frees space: writes are accepted again without a restart.
    fs.rmSync(filler);
    await eventually(async () => {
      const res = await api.post("/api/vendor/orders", { customerName: "After", type: "SUIT" }, { key });
      return res.status === 201;
    });
    expect((await api.get("/ready")).status).toBe(200);
    await outputMatching(service, /disk space recovered under DATA_DIR/);

    service.child.kill("SIGTERM");
    expect(await service.exited).toBe(0);
  }, 300_000);
});
