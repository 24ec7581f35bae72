// What /docs costs on the wire: the page, the scripts it names and the document Redoc loads
// (its spec-url), fetched as a browser would, once per Accept-Encoding, bytes counted as they
// arrive (headers included, bodies undecoded). Against a running server:
//   node --import tsx bench/docs-wire.ts http://127.0.0.1:3000
import http from "node:http";

const base = process.argv[2] ?? "http://127.0.0.1:3000";

function get(
  url: string,
  acceptEncoding: string,
): Promise<{ body: Buffer; headerBytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { "accept-encoding": acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            body: Buffer.concat(chunks),
            headerBytes: res.rawHeaders.join(": ").length + 2 * res.rawHeaders.length,
            encoding: String(res.headers["content-encoding"] ?? "identity"),
          }),
        );
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

for (const acceptEncoding of ["br, gzip, deflate", "gzip, deflate", "identity"]) {
  const page = await get(`${base}/docs`, acceptEncoding);
  const html = (
    page.encoding === "br"
      ? (await import("node:zlib")).brotliDecompressSync(page.body)
      : page.encoding === "gzip"
        ? (await import("node:zlib")).gunzipSync(page.body)
        : page.body
  ).toString("utf8");
  const urls = [
    ...[...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1] as string),
    ...[...html.matchAll(/spec-url="([^"]+)"/g)].map((m) => m[1] as string),
  ];
  const rows = [{ url: "/docs", bytes: page.body.length + page.headerBytes, encoding: page.encoding }];
  for (const url of urls) {
    const res = await get(`${base}${url}`, acceptEncoding);
    rows.push({ url, bytes: res.body.length + res.headerBytes, encoding: res.encoding });
  }
  const total = rows.reduce((sum, r) => sum + r.bytes, 0);
  console.log(
    `Accept-Encoding: ${acceptEncoding}: ${(total / 1024).toFixed(1)} KiB in ${rows.length} requests`,
  );
  for (const r of rows)
    console.log(`  ${(r.bytes / 1024).toFixed(1).padStart(8)} KiB  ${r.encoding.padEnd(8)} ${r.url}`);
}
