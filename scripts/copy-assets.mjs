// `npm run build`, second half: tsc compiles src/**/*.ts to dist/; the files it does not compile
// (stylesheets, browser scripts) are copied beside them, so dist/ runs on its own with `node`.
import fs from "node:fs";
import path from "node:path";

function copy(from, to) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copy(source, target);
    else if (!entry.name.endsWith(".ts") && !entry.name.endsWith(".md")) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(source, target);
    }
  }
}
copy("src", "dist");

// The reference's Redoc bundle, compressed here once (Brotli at its best ratio takes seconds)
// rather than by the server at its first reader (src/docs/reference-page.ts).
const { precompressReferenceBundle } = await import("../dist/docs/reference-page.js");
await precompressReferenceBundle(path.join("dist", "docs", "assets"));
