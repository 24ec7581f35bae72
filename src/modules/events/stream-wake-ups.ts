// When this process's open event streams read the events table, and when they check their
// credential again. Polling each stream twice a second cost ~2 transactions a second per idle
// stream; instead every stream sleeps until told:
// - a NOTIFY on `events_written` (migrations/0027, on commit of an event) wakes the streams of
//   that shop; the slow fallback poll (`idlePollMs`) only covers what a notification could miss.
//   Events notify only for the shops leased in event_stream_shops: a process leases each shop it
//   has a stream of (before the stream's first read) and renews the leases while it has;
//   a new stream catches up as a woken one does (below), so an event whose writer could not yet
//   see the lease, and so did not notify, is not left to the fallback poll;
// - a NOTIFY on `api_key_changes` (0007) or `oauth_grant_changes` (0027) makes the streams of that
//   key or grant check their credential at once, so a revoked one ends within the notification's
//   way on every API process (CONTRACT 12: within 2 s);
// - while the LISTEN connection is down nothing can be learnt from it: every stream checks its
//   credential and polls every `pollMs` until it is back, then once more (what happened meanwhile
//   is unknown).
//
// The sync horizon (db/sync-horizon.ts) is database-wide, so one query per wake-up serves every
// stream it wakes. A woken stream may still find the new event beyond the horizon (another
// transaction that began earlier is still running): it polls again every `pollMs` until the
// horizon passes the moment it was woken, past which every event committed before the wake-up is.
import type { Principal } from "../../auth/principal.ts";
import type { ServiceContext } from "../../context.ts";
import type { Database } from "../../db/client.ts";
import { syncHorizonAndNow } from "../../db/sync-horizon.ts";
import { API_KEY_CHANGES_CHANNEL } from "../api-keys/verified-keys.ts";
import { leaseStreamShops } from "./stream-shops.repository.ts";

export const EVENTS_WRITTEN_CHANNEL = "events_written";
export const OAUTH_GRANT_CHANGES_CHANNEL = "oauth_grant_changes";
/** How long a shop's lease lasts, and how often a process with its streams renews it. */
const LEASE_S = 90;
const RENEW_MS = 30_000;

/** An open stream, as the wake-ups see it. */
export interface WakeableStream {
  vendorId: string;
  credential: Principal["credential"];
  /**
   * Reads the events before `horizon` and writes them out, without waiting for the client to read
   * them; never throws (a failure ends the stream).
   */
  poll(horizon: string): Promise<void>;
  /** Checks the credential again; ends the stream when it no longer holds. Never throws. */
  recheck(): Promise<void>;
  /** Ends the stream because its events cannot be read now. */
  fail(error: unknown): void;
}

export interface StreamWakeUpTimings {
  /** How soon a stream polls again while catching up, or while notifications cannot be trusted. */
  pollMs: number;
  /** The fallback poll of an idle stream, for a notification lost on its way. */
  idlePollMs: number;
}

export interface StreamWakeUps {
  /**
   * Follows `stream` until the returned function is called. Resolves once notifications about it
   * are listened for: a change committed after that reaches it.
   */
  add(stream: WakeableStream): Promise<() => void>;
  close(): Promise<void>;
}

interface Entry {
  stream: WakeableStream;
  /** To poll at the next run. */
  due: boolean;
  /** Woken by a notification: the next run notes the database's "now" as `catchUpTo`. */
  woken: boolean;
  /** Polls again until a horizon passes this instant (see the header). */
  catchUpTo: string | undefined;
}

export function createStreamWakeUps(
  ctx: ServiceContext,
  database: Pick<Database, "listen">,
  timings: StreamWakeUpTimings,
): StreamWakeUps {
  const entries = new Set<Entry>();
  let listening: Promise<void> | undefined;
  const unlisteners: Array<() => Promise<void>> = [];
  /** Whether notifications can be trusted (the LISTEN connection is up). */
  let trusted = true;
  let running = false;
  let again = false;
  let fallback: NodeJS.Timeout | undefined;
  let soon: NodeJS.Timeout | undefined;
  let closed = false;
  /** The shops this process leased, and when (performance.now()). */
  const leased = new Map<string, number>();
  let renewal: NodeJS.Timeout | undefined;

  const vendorsFollowed = () => new Set([...entries].map((e) => e.stream.vendorId));
  const renewLeases = () => {
    clearTimeout(renewal);
    if (closed || entries.size === 0) return;
    renewal = setTimeout(async () => {
      const vendorIds = [...vendorsFollowed()];
      for (const id of leased.keys()) if (!vendorIds.includes(id)) leased.delete(id);
      // A renewal that fails leaves the streams to their fallback poll until the next one; a
      // database that stays away ends them when they read.
      await leaseStreamShops(ctx.db, vendorIds, LEASE_S).then(
        () => {
          for (const id of vendorIds) leased.set(id, performance.now());
        },
        () => {},
      );
      renewLeases();
    }, RENEW_MS);
    renewal.unref();
  };
  /** Leases the shop unless this process did lately (a lease outlives a renewal period twice). */
  const lease = async (vendorId: string) => {
    const at = leased.get(vendorId);
    if (at !== undefined && performance.now() - at < RENEW_MS) return;
    await leaseStreamShops(ctx.db, [vendorId], LEASE_S);
    leased.set(vendorId, performance.now());
  };

  const each = (match: (stream: WakeableStream) => boolean, act: (entry: Entry) => void) => {
    for (const entry of entries) if (match(entry.stream)) act(entry);
  };
  const wake = (entry: Entry) => {
    entry.due = true;
    entry.woken = true;
    entry.catchUpTo = undefined;
  };
  const recheck = (entry: Entry) => void entry.stream.recheck();

  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const due = [...entries].filter((e) => e.due);
        if (due.length === 0) break;
        for (const e of due) e.due = false;
        let read: { horizon: string; now: string };
        try {
          read = await syncHorizonAndNow(ctx.db);
        } catch (error) {
          for (const e of due) e.stream.fail(error);
          continue;
        }
        // One after another: one pooled connection serves them all (each poll is one indexed
        // read; the socket writes do not wait), where reading in parallel opened a connection per
        // stream, and each new connection is transactions of its own.
        for (const e of due) {
          if (!entries.has(e)) continue;
          if (e.woken) {
            e.woken = false;
            e.catchUpTo = read.now;
          }
          await e.stream.poll(read.horizon);
          // Strictly past: an event stamped in the very millisecond of `now` is before it.
          if (e.catchUpTo !== undefined && read.horizon > e.catchUpTo) e.catchUpTo = undefined;
        }
      } while (again);
    } finally {
      running = false;
    }
    const catchingUp = [...entries].filter((e) => e.catchUpTo !== undefined);
    if (catchingUp.length > 0 && !closed) {
      clearTimeout(soon);
      soon = setTimeout(() => {
        for (const e of catchingUp) if (entries.has(e)) e.due = true;
        void run();
      }, timings.pollMs);
    }
  };

  const scheduleFallback = () => {
    clearTimeout(fallback);
    if (closed || entries.size === 0) return;
    fallback = setTimeout(
      () => {
        for (const e of entries) {
          e.due = true;
          if (!trusted) recheck(e);
        }
        void run();
        scheduleFallback();
      },
      trusted ? timings.idlePollMs : timings.pollMs,
    );
  };

  const startListening = async () => {
    const onLost = () => {
      trusted = false;
      scheduleFallback();
    };
    const everything = (payload: string) => payload === "";
    const back = () => {
      // The connection is back: what was sent meanwhile is lost, so everything is asked again.
      trusted = true;
      for (const e of entries) {
        wake(e);
        recheck(e);
      }
      void run();
      scheduleFallback();
    };
    unlisteners.push(
      await database.listen(
        EVENTS_WRITTEN_CHANNEL,
        (vendorId) => {
          if (everything(vendorId)) return back();
          each((s) => s.vendorId === vendorId, wake);
          void run();
        },
        onLost,
      ),
      await database.listen(
        API_KEY_CHANGES_CHANNEL,
        (keyId) => {
          if (everything(keyId)) return;
          each((s) => s.credential.kind === "api_key" && s.credential.id === keyId, recheck);
        },
        onLost,
      ),
      await database.listen(
        OAUTH_GRANT_CHANGES_CHANNEL,
        (grantId) => {
          if (everything(grantId)) return;
          each((s) => s.credential.kind === "oauth" && s.credential.grantId === grantId, recheck);
        },
        onLost,
      ),
    );
  };

  return {
    async add(stream) {
      // Listening starts with the first stream: a process nobody streams from hears nothing.
      listening ??= startListening();
      await listening;
      try {
        await lease(stream.vendorId);
      } catch (error) {
        stream.fail(error);
        return () => {};
      }
      // Its first read catches up as a woken stream's does (see the header).
      const entry: Entry = { stream, due: true, woken: true, catchUpTo: undefined };
      entries.add(entry);
      if (entries.size === 1) {
        scheduleFallback();
        renewLeases();
      }
      void run();
      return () => {
        entries.delete(entry);
        if (entries.size === 0) {
          clearTimeout(fallback);
          clearTimeout(soon);
          clearTimeout(renewal);
        }
      };
    },
    async close() {
      closed = true;
      clearTimeout(fallback);
      clearTimeout(soon);
      clearTimeout(renewal);
      entries.clear();
      await Promise.all(unlisteners.map((unlisten) => unlisten()));
    },
  };
}
