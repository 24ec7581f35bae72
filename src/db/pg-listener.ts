// One LISTEN connection per process for every channel it follows (the dispatcher's wake-ups, the
// API-key cache's invalidations), re-established whenever it drops: a database restart, a
// terminated backend, a network cut. Notifications sent while it was down are lost, so a
// subscriber is told when the connection is lost (`onLost`: trust nothing learnt from it) and,
// once it is back, called with an empty payload (`onNotify("")`: anything may have changed).
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

export function createPgListener(url: string): PgListener {
  const channels = new Map<string, Set<Subscriber>>();
  /** The connection and the channels it LISTENs to, while it is up. */
  let live: { client: pg.Client; listening: Set<string> } | undefined;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let down = false;

  const everyone = () => [...channels.values()].flatMap((subs) => [...subs]);

  const open = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: url,
      keepAlive: true,
      application_name: LISTENER_APPLICATION_NAME,
    });
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      client.end().catch(() => {});
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
      live = { client, listening };
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
      // A failure here is the connection failing: its loss is handled as any other.
      await live.client.query(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
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
        await client?.end().catch(() => {});
      };
    },
  };
}
