// One LISTEN connection per process for every channel it follows (the dispatcher's wake-ups, the
// API-key cache's invalidations), re-established whenever it drops: a database restart, a
// terminated backend, a network cut. Notifications sent while it was down are lost, so a
// subscriber is told when the connection is lost (`onLost`: trust nothing learnt from it) and,
// once it is back, called with an empty payload (`onNotify("")`: anything may have changed).
//
// A connection can also stall without dropping (a peer that stops answering, a proxy or NAT that
// forgets it, a frozen host): no error, no end, and no notification either. A heartbeat finds it:
// every `heartbeatMs` the connection answers a `select 1` within `deadlineMs`, or it is lost as
// if it had dropped (subscribers told `onLost`, the socket destroyed, a new one opened). So a
// subscriber trusts nothing for longer than heartbeatMs + deadlineMs after the last proof that
// notifications could still arrive. (The API-key cache held a revoked key for 58.5 s behind a
// stalled connection before this.)
//
// The same session holds the process's advisory locks (`holdLock`): a lock lives exactly as long
// as the session, so another process reads from pg_locks whether its holder is still there (a
// webhook lease's holder, src/webhook-delivery/outbox.repository.ts requeueAbandoned). They are
// taken again after each reconnect, and retried on each heartbeat while another session still
// has one (the old backend of a connection cut without PostgreSQL noticing yet).
import pg from "pg";

/** How the LISTEN connection names itself in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "vendor-api-listener";

export interface Subscriber {
  onNotify(payload: string): void;
  onLost?(): void;
}

export interface PgListener {
  /**
   * Follows `channel` until the returned function is called. The first subscription connects; a
   * subscription made while the connection is down (the database unreachable, even at start) is
   * told `onLost` at once and `onNotify("")` when it is back. It never fails.
   */
  listen(channel: string, subscriber: Subscriber): Promise<() => Promise<void>>;
  /**
   * Holds the session-level advisory lock `hashtextextended(name, 0)` on this connection until the
   * returned function is called, taken again after every reconnect. Resolves once it was tried:
   * it is held unless the connection is down or another session still holds it (then the next
   * reconnect or heartbeat tries again). It never fails.
   */
  holdLock(name: string): Promise<() => Promise<void>>;
}

export interface ListenerTimings {
  /** How often the connection proves it is alive (a `select 1` round trip). */
  heartbeatMs: number;
  /** How long the proof, a LISTEN, or setting up a connection may take before it counts as lost. */
  deadlineMs: number;
}

export const DEFAULT_LISTENER_TIMINGS: ListenerTimings = { heartbeatMs: 5_000, deadlineMs: 4_000 };

export function createPgListener(
  url: string,
  timings: ListenerTimings = DEFAULT_LISTENER_TIMINGS,
): PgListener {
  const channels = new Map<string, Set<Subscriber>>();
  /** The advisory locks the session is to hold (their names). */
  const locks = new Set<string>();
  /**
   * The connection, the channels it LISTENs to and the locks it holds, while it is up. Its
   * statements go through `run`, one at a time.
   */
  let live:
    | { client: pg.Client; run: Serial; listening: Set<string>; held: Set<string>; lose: () => void }
    | undefined;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let down = false;

  const everyone = () => [...channels.values()].flatMap((subs) => [...subs]);
  const wanted = () => channels.size > 0 || locks.size > 0;

  /** Takes the locks wanted and not held yet; one still held elsewhere is left for a later try. */
  const takeLocks = async (client: pg.Client, held: Set<string>): Promise<void> => {
    for (const name of locks) {
      if (held.has(name)) continue;
      const { rows } = await client.query<{ ok: boolean }>(
        "select pg_try_advisory_lock(hashtextextended($1, 0)) as ok",
        [name],
      );
      if (rows[0]?.ok) held.add(name);
    }
  };

  const open = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: url,
      keepAlive: true,
      application_name: LISTENER_APPLICATION_NAME,
      // A connection that does not come up, or a statement that is not answered, in time is a
      // stalled one: the open fails (and is retried), or the connection is given up.
      connectionTimeoutMillis: timings.deadlineMs,
      query_timeout: timings.deadlineMs,
    });
    const run = serial();
    let lost = false;
    let heartbeat: NodeJS.Timeout | undefined;
    const onLost = () => {
      if (lost) return;
      lost = true;
      clearTimeout(heartbeat);
      client.end().catch(() => {});
      // A stalled peer never answers the goodbye: the socket goes now, not when TCP gives up.
      socketOf(client)?.destroy();
      if (live?.client !== client) return; // not up yet: the failed open() retries by itself
      live = undefined;
      down = true;
      for (const s of everyone()) s.onLost?.();
      scheduleReconnect(250);
    };
    client.on("error", onLost);
    client.on("end", onLost);
    client.on("notification", (msg) => {
      for (const s of channels.get(msg.channel) ?? []) s.onNotify(msg.payload ?? "");
    });
    try {
      await client.connect();
      const listening = new Set<string>();
      for (const channel of channels.keys()) {
        await run(() => client.query(`LISTEN ${pg.escapeIdentifier(channel)}`));
        listening.add(channel);
      }
      const held = new Set<string>();
      await run(() => takeLocks(client, held));
      if (lost) throw new Error("the LISTEN connection dropped while it was set up");
      live = { client, run, listening, held, lose: onLost };
      const beat = () => {
        heartbeat = setTimeout(() => {
          if (lost || live?.client !== client) return;
          const proof = run<unknown>(() =>
            held.size < locks.size ? takeLocks(client, held) : client.query("select 1"),
          );
          proof.then(beat, onLost);
        }, timings.heartbeatMs);
        heartbeat.unref();
      };
      beat();
    } catch (err) {
      lost = true;
      client.end().catch(() => {});
      throw err;
    }
  };

  const scheduleReconnect = (delayMs: number) => {
    clearTimeout(retry);
    if (!wanted()) return;
    retry = setTimeout(() => {
      open().then(
        () => {
          if (!wanted()) {
            // Everyone left while it reconnected.
            const client = live?.client;
            live = undefined;
            client?.end().catch(() => {});
            return;
          }
          down = false;
          for (const s of everyone()) s.onNotify("");
        },
        () => scheduleReconnect(Math.min(delayMs * 2, 5_000)),
      );
    }, delayMs);
  };

  /** Opens the connection unless it is up or down (then the reconnect is under way). */
  const ensureOpen = async (): Promise<void> => {
    if (down || live) return;
    // A database that cannot be reached yet does not stop the caller from starting (the API
    // answers 503 meanwhile): the connection is down until a retry reaches it.
    connecting ??= open()
      .catch(() => {
        down = true;
        scheduleReconnect(250);
      })
      .finally(() => {
        connecting = undefined;
      });
    await connecting;
  };

  const ensureListening = async (channel: string): Promise<void> => {
    await ensureOpen(); // the reconnect LISTENs to every channel
    if (live && !live.listening.has(channel)) {
      live.listening.add(channel);
      // A failure here is the connection failing (or stalled): lost, and the reconnect LISTENs.
      const { client, run, lose } = live;
      await run(() => client.query(`LISTEN ${pg.escapeIdentifier(channel)}`)).catch(lose);
    }
  };

  /** Closes the connection once nothing is followed and no lock is held. */
  const closeIfUnwanted = async (): Promise<void> => {
    if (wanted()) return;
    clearTimeout(retry);
    down = false;
    const client = live?.client;
    live = undefined;
    await endWithin(client, timings.deadlineMs);
  };

  return {
    async listen(channel, subscriber) {
      const subs = channels.get(channel) ?? new Set<Subscriber>();
      channels.set(channel, subs);
      subs.add(subscriber);
      await ensureListening(channel);
      if (down) subscriber.onLost?.();
      let stopped = false;
      return async () => {
        if (stopped) return;
        stopped = true;
        subs.delete(subscriber);
        if (subs.size > 0 || channels.get(channel) !== subs) return;
        channels.delete(channel);
        if (wanted()) {
          if (live?.listening.delete(channel)) {
            const { client } = live;
            await live.run(() => client.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`)).catch(() => {});
          }
          return;
        }
        // Nobody follows anything: the connection closes (a later subscription opens a new one).
        await closeIfUnwanted();
      };
    },

    async holdLock(name) {
      locks.add(name);
      await ensureOpen();
      if (live && !live.held.has(name)) {
        const { client, run, held, lose } = live;
        await run(() => takeLocks(client, held)).catch(lose);
      }
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        locks.delete(name);
        if (live?.held.delete(name)) {
          const { client } = live;
          await live
            .run(() => client.query("select pg_advisory_unlock(hashtextextended($1, 0))", [name]))
            .catch(() => {});
        }
        await closeIfUnwanted();
      };
    },
  };
}

type Serial = <T>(statement: () => Promise<T>) => Promise<T>;

/**
 * Runs a connection's statements one after another, each once the one before has settled. pg
 * queues a query sent while another runs, but warns that pg@9 will refuse it; and two lock
 * attempts overlapping (a heartbeat's and holdLock's) would both take the same session lock, which
 * PostgreSQL then counts twice: the one unlock at release would leave it held.
 */
function serial(): Serial {
  let tail: Promise<unknown> = Promise.resolve();
  return (statement) => {
    const next = tail.then(statement, statement);
    tail = next.catch(() => {});
    return next;
  };
}

/** Ends the connection, or destroys its socket if the peer has not answered within `ms`. */
async function endWithin(client: pg.Client | undefined, ms: number): Promise<void> {
  if (!client) return;
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    client.end().then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  if (!ended) socketOf(client)?.destroy();
}

const socketOf = (client: pg.Client) =>
  (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
