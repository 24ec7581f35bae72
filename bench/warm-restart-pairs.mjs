// Warm restarts of two checkouts, paired: `node scripts/start.mjs` from each root in turn on one
// DATA_DIR (the first round makes it on a new one, and compiles each checkout's start cache),
// timed from spawn to the first 200 from /health, with the CPU (utime+stime) of the pid and the
// load average. "sharp-mapped" says sharp's library was loaded by the process.
//
//   node bench/warm-restart-pairs.mjs DATA_DIR ROUNDS ROOT_A ROOT_B [...]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

const [dataDir, rounds, ...roots] = process.argv.slice(2);
const cpu = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const x = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(x[11]) + Number(x[12])) / 100;
};
let port = 41000 + (process.pid % 1000);
async function once(root) {
  port++;
  const t0 = performance.now();
  const child = spawn("node", ["scripts/start.mjs"], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.status === 200) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 25));
  }
  const wall = (performance.now() - t0) / 1000;
  const c = cpu(child.pid);
  const mods = fs.readFileSync(`/proc/${child.pid}/maps`, "utf8").includes("sharp") ? "sharp-mapped" : "";
  child.kill("SIGTERM");
  await new Promise((r) => child.on("exit", r));
  return { wall: wall.toFixed(2), cpu: c.toFixed(2), load: os.loadavg()[0].toFixed(1), mods };
}
for (let i = 0; i < Number(rounds); i++)
  for (const root of roots) console.log(i, root, JSON.stringify(await once(root)));
