// What this machine has for the tests that need more than Node: one place for the checks that both
// the tests' skipIf and the skipped-groups reporter read.
import fs from "node:fs";
import path from "node:path";

/** The first executable named `name` on PATH, or undefined. */
export function onPath(name: string): string | undefined {
  return (process.env.PATH ?? "")
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name))
    .find((file) => fs.existsSync(file));
}
