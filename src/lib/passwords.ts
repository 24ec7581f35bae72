import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

// scrypt from node:crypto (N=2^15, r=8, p=1: ~50 ms here) is a memory-hard slow hash that needs
// no native addon; the parameters are stored in the hash so they can be raised later.
const N = 2 ** 15;
const r = 8;
const p = 1;
const keyLength = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize("NFKC"),
      salt,
      keyLength,
      { ...options, maxmem: 64 * 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/**
 * `cost` lowers N for hashes that protect nothing: the test suite's shared test password, signed
 * in with hundreds of times (each verification pays the N the hash was made with). The service
 * always hashes with the default.
 */
export async function hashPassword(password: string, cost: { N?: number } = {}): Promise<string> {
  const n = cost.N ?? N;
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N: n, r, p });
  return `scrypt$${n}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, rr, pp, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !n || !rr || !pp || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(rr),
    p: Number(pp),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
