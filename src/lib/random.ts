// Bytes from the operating system's CSPRNG, drawn 4 KiB at a time: one getrandom call then serves
// a few hundred ids and tokens instead of one each (an order create needs five; each call cost
// ~10 µs of a ~200 µs request). Node's own randomUUID batches the same way. Bytes handed out are
// wiped from the batch, so a secret never lingers in it once issued.
import { randomBytes } from "node:crypto";

const BATCH_BYTES = 4096;
let batch = Buffer.alloc(0);
let offset = 0;

/** Where the next `n` bytes start, drawing a new batch when this one has fewer left. */
function reserve(n: number): number {
  if (offset + n > batch.length) {
    batch = randomBytes(BATCH_BYTES);
    offset = 0;
  }
  const start = offset;
  offset += n;
  return start;
}

/** `n` bytes from the CSPRNG, a copy the caller owns. */
export function secureRandomBytes(n: number): Buffer {
  if (n > BATCH_BYTES / 4) return randomBytes(n);
  const start = reserve(n);
  const copy = Buffer.from(batch.subarray(start, start + n));
  batch.fill(0, start, start + n);
  return copy;
}

/** One byte from the CSPRNG (0-255); ids take ~26 each, so no Buffer is made per byte. */
export function secureRandomByte(): number {
  const at = reserve(1);
  const byte = batch[at] as number;
  batch[at] = 0;
  return byte;
}
