// Where the suite's CPU goes, file by file: with TEST_CPU_LOG=<file>, setup.ts appends one line per
// test file, `<seconds of CPU> <worker's own> <its children's> <path>`. A worker's own CPU and the
// CPU of the children it has reaped come from /proc/self/stat; the children still alive (a
// worker's shared Chromium, a service a later file stops) from their own /proc entries, so a
// child's CPU is counted in the file during which it ran. Linux only; nothing is read without
// the variable. With TEST_CPU_PROFILE_DIR=<dir>, each file's worker-side V8 CPU profile is written
// there too (`<file>.cpuprofile`, for Chrome's DevTools or speedscope).
import fs from "node:fs";
import { Session } from "node:inspector/promises";
import path from "node:path";

const TICKS_PER_SECOND = 100;

interface Sample {
  self: number;
  children: number;
}

function statFields(pid: number | "self"): string[] | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may hold spaces: the fields start after it.
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Every live descendant's own CPU plus what it has reaped, in ticks. */
function liveDescendantTicks(root: number): number {
  const parentOf = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const name of fs.readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const f = statFields(pid);
    if (!f) continue;
    // After the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14).
    parentOf.set(pid, Number(f[1]));
    ticks.set(pid, Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
  }
  let sum = 0;
  for (const [pid, t] of ticks) {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) {
      if (p === root) {
        sum += t;
        break;
      }
    }
  }
  return sum;
}

function sample(): Sample {
  const f = statFields("self") ?? [];
  return {
    self: Number(f[11]) + Number(f[12]),
    children: Number(f[13]) + Number(f[14]) + liveDescendantTicks(process.pid),
  };
}

let start: Sample | undefined;
let profiler: Session | undefined;

export async function startCpuLog(): Promise<void> {
  if (process.env.TEST_CPU_LOG) start = sample();
  if (process.env.TEST_CPU_PROFILE_DIR) {
    profiler = new Session();
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
  }
}

async function writeProfile(file: string): Promise<void> {
  const dir = process.env.TEST_CPU_PROFILE_DIR;
  if (!dir || !profiler) return;
  const { profile } = await profiler.post("Profiler.stop");
  profiler.disconnect();
  profiler = undefined;
  fs.mkdirSync(dir, { recursive: true });
  const name = path.relative(process.cwd(), file).replaceAll(path.sep, "-");
  fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
}

export async function endCpuLog(file: string): Promise<void> {
  await writeProfile(file);
  const out = process.env.TEST_CPU_LOG;
  if (!out || !start) return;
  const end = sample();
  const self = (end.self - start.self) / TICKS_PER_SECOND;
  const children = (end.children - start.children) / TICKS_PER_SECOND;
  fs.appendFileSync(
    out,
    `${(self + children).toFixed(2)} ${self.toFixed(2)} ${children.toFixed(2)} ${file}\n`,
  );
}
