// API keys verified recently, held in this process so an authenticated request costs the
// database one round trip (its own statement) instead of two: the key lookup was a third of what
// an order create sent to PostgreSQL (bench/history/2026-11.md).
//
// A key's row changes only when it is revoked, or deleted with its vendor. The api_key_changes
// trigger (migrations/0007_api_key_changes.sql) NOTIFYs every process of such a change on commit,
// whatever made it (the API, the dashboard, the CLI, an operator's own SQL), and:
// - a notification forgets that key, and moves the generation on, so a lookup that began before it
//   cannot store the row it read;
// - while the LISTEN connection is down nothing is served from memory (notifications sent then
//   are lost), and once it is back everything held is forgotten; a connection that stalls
//   without dropping counts as down once it misses its heartbeat (db/pg-listener.ts), so a key
//   revoked elsewhere is refused within the heartbeat and the query timeout (5 s + 4 s);
// - a revocation made in this process forgets the key here at once (`forgetApiKey`), before the
//   answer that confirms it, so the caller's next request is refused even on this process;
// - an entry is trusted for API_KEY_CACHE_SECONDS at most (0 turns the cache off): a bound on
//   anything notifications could miss, such as a pooler that does not pass them on.
import { performance } from "node:perf_hooks";
import type { Database } from "../../db/client.ts";
import type { KeyCredential } from "./api-keys.repository.ts";

export const API_KEY_CHANGES_CHANNEL = "api_key_changes";
/** Enough for every active key of a large deployment; past it the oldest entry goes. */
const MAX_ENTRIES = 10_000;

export interface VerifiedKeys {
  /** The held credential whose hash is `keyHash`, if it is still trusted. */
  get(keyHash: string): KeyCredential | undefined;
  /** Taken before a lookup, and handed back to `remember` with its result. */
  generation(): number;
  remember(credential: KeyCredential, generation: number): void;
  close(): Promise<void>;
}

interface Held {
  credential: KeyCredential;
  /** performance.now() when it was read from the database. */
  readAt: number;
}

/** Every open cache of this process, for `forgetApiKey`. */
const caches = new Set<{ forget(id: string): void }>();

/** A key this process just revoked: forgotten by every cache here, before anyone is told. */
export function forgetApiKey(id: string): void {
  for (const cache of caches) cache.forget(id);
}

const NO_CACHE: VerifiedKeys = {
  get: () => undefined,
  generation: () => 0,
  remember: () => {},
  close: async () => {},
};

export async function openVerifiedKeys(database: Database, maxAgeMs: number): Promise<VerifiedKeys> {
  if (maxAgeMs <= 0) return NO_CACHE;
  const byHash = new Map<string, Held>();
  const hashById = new Map<string, string>();
  let generation = 0;
  let trusted = true;

  const forgetAll = () => {
    generation++;
    byHash.clear();
    hashById.clear();
  };
  const drop = (id: string) => {
    const hash = hashById.get(id);
    if (hash === undefined) return;
    hashById.delete(id);
    byHash.delete(hash);
  };
  const self = {
    /** A change to the key: reads already on their way may hold its old row, so none is kept. */
    forget(id: string) {
      generation++;
      drop(id);
    },
  };
  caches.add(self);
  const unlisten = await database.listen(
    API_KEY_CHANGES_CHANNEL,
    (id) => {
      if (id !== "") return self.forget(id);
      // The connection is back: what changed while it was down is unknown.
      forgetAll();
      trusted = true;
    },
    () => {
      trusted = false;
      forgetAll();
    },
  );

  return {
    get(keyHash) {
      if (!trusted) return undefined;
      const held = byHash.get(keyHash);
      if (!held) return undefined;
      if (performance.now() - held.readAt > maxAgeMs) {
        drop(held.credential.id); // only its age: nothing changed, so reads on their way may keep it
        return undefined;
      }
      return held.credential;
    },
    generation: () => generation,
    remember(credential, since) {
      if (!trusted || since !== generation || credential.revoked) return;
      if (byHash.size >= MAX_ENTRIES) {
        const oldest = byHash.keys().next().value;
        if (oldest !== undefined) {
          const held = byHash.get(oldest);
          byHash.delete(oldest);
          if (held) hashById.delete(held.credential.id);
        }
      }
      byHash.set(credential.keyHash, { credential, readAt: performance.now() });
      hashById.set(credential.id, credential.keyHash);
    },
    async close() {
      caches.delete(self);
      forgetAll();
      await unlisten();
    },
  };
}
