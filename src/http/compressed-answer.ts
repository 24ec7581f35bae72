// Compressed answers for text that does not change while the process runs (the docs pages, the
// Redoc bundle, the OpenAPI document). The rules:
//  1. Each text is compressed once, Brotli and gzip at their best ratio, off the event loop
//     (zlib's thread pool), and kept: a reader never waits for more than the first compression.
//  2. The encoding is the client's choice by Accept-Encoding (RFC 9110 12.5.3): br, else gzip,
//     else the text as it is; every answer says `Vary: Accept-Encoding`, so a cache keeps them apart.
//  3. The ETag is the text's content hash, the same for every encoding of it, and If-None-Match
//     with it answers 304 (RFC 9110 13.1.2: weak comparison).
// API answers are not compressed here: they change with every request, and the benchmark's
// clients send no Accept-Encoding.
import { createHash } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";
import Negotiator from "negotiator";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

export interface EncodedText {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
  /** The first 16 hex digits of the SHA-256 of `identity`: a fingerprint for URLs and the ETag. */
  hash: string;
}

/** The text's content hash (`EncodedText.hash`), without compressing it. */
export function contentHash(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Compresses `text` both ways (rule 1); callers keep the promise, so it runs once. */
export async function encodeText(text: string | Buffer): Promise<EncodedText> {
  const identity = Buffer.isBuffer(text) ? text : Buffer.from(text, "utf8");
  const [br, gz] = await Promise.all([
    brotli(identity, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    }),
    gzip(identity, { level: zlib.constants.Z_BEST_COMPRESSION }),
  ]);
  return { identity, br, gzip: gz, hash: contentHash(identity) };
}

/** The encoding to answer with (rule 2), or undefined for the text as it is. */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): "br" | "gzip" | undefined {
  if (!acceptEncoding) return undefined;
  const chosen = new Negotiator({ headers: { "accept-encoding": acceptEncoding } }).encoding([
    "br",
    "gzip",
    "identity",
  ]);
  return chosen === "br" || chosen === "gzip" ? chosen : undefined;
}

/** Sends `text` in the encoding the request accepts, with Vary, Content-Encoding and its ETag. */
export function sendEncoded(request: FastifyRequest, reply: FastifyReply, text: EncodedText): FastifyReply {
  const etag = `"${text.hash}"`;
  reply.header("vary", "Accept-Encoding").header("etag", etag);
  const ifNoneMatch = request.headers["if-none-match"];
  if (ifNoneMatch?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
    return reply.code(304).send();
  }
  const encoding = chooseEncoding(request.headers["accept-encoding"]);
  if (encoding) reply.header("content-encoding", encoding);
  return reply.send(encoding ? text[encoding] : text.identity);
}
