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
  /** The connection and the channels it LISTENs to, while it is up; `lose` gives it up. */
  let live: { client: pg.Client; listening: Set<string>; lose: () => void } | undefined;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let down = false;

  const everyone = () => [...channels.values()].flatMap((subs) => [...subs]);

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
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        listening.add(channel);
      }
      if (lost) throw new Error("the LISTEN connection dropped while it was set up");
      live = { client, listening, lose: onLost };
      const beat = () => {
        heartbeat = setTimeout(() => {
          if (lost || live?.client !== client) return;
          client.query("select 1").then(beat, onLost);
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
    if (channels.size === 0) return;
    retry = setTimeout(() => {
      open().then(
        () => {
          if (channels.size === 0) {
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

  const ensureListening = async (channel: string): Promise<void> => {
    if (down) return; // the reconnect LISTENs to every channel
    if (!live) {
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
    }
    if (live && !live.listening.has(channel)) {
      live.listening.add(channel);
      // A failure here is the connection failing (or stalled): lost, and the reconnect LISTENs.
      const { client, lose } = live;
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(lose);
    }
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
        if (channels.size > 0) {
          if (live?.listening.delete(channel)) {
            await live.client.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
          }
          return;
        }
        // Nobody follows anything: the connection closes (a later subscription opens a new one).
        clearTimeout(retry);
        down = false;
        const client = live?.client;
        live = undefined;
        await endWithin(client, timings.deadlineMs);
      };
    },
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
