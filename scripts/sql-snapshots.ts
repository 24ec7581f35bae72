// Writes the hot statements' SQL as the code builds it to test/sql/<name>.sql (and removes the
// files of statements that are gone), for a reviewer to see a plan-changing edit in the diff.
// test/sql/snapshots.test.ts fails until this is run after such an edit.
import fs from "node:fs";
import path from "node:path";
import { snapshotFiles, snapshots } from "../test/sql/statements.ts";

const wanted = snapshots();
for (const s of wanted) {
  const old = fs.existsSync(s.file) ? fs.readFileSync(s.file, "utf8") : undefined;
  if (old === s.text) continue;
  fs.writeFileSync(s.file, s.text);
  console.log(`${old === undefined ? "wrote" : "updated"} ${path.relative(process.cwd(), s.file)}`);
}
for (const file of snapshotFiles()) {
  if (wanted.some((s) => s.file === file)) continue;
  fs.rmSync(file);
  console.log(`removed ${path.relative(process.cwd(), file)}`);
}
