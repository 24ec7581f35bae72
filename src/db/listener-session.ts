// One connection of the process's LISTEN connection (pg-listener.ts): the client it talks
// through, a `pg.Client` in the service and a scripted one in test/unit/pg-listener.test.ts, and the
// session's own state (the channels it LISTENs to, the locks it holds, its heartbeat's timer).
import type pg from "pg";
import { loadPgDriver, type Pg } from "./pg-driver.ts";

/** How the LISTEN connection names itself in pg_stat_activity. */
export const LISTENER_APPLICATION_NAME = "vendor-api-listener";

export interface ListenerTimings {
  /** How often the connection proves it is alive (a `select 1` round trip). */
  heartbeatMs: number;
  /** How long the proof, a LISTEN, or setting up a connection may take before it counts as lost. */
  deadlineMs: number;
}

/** The little of a `pg.Client` the listener uses; a test scripts one without a database. */
export interface ListenerClient {
  connect(): Promise<void>;
  query<R extends object>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  /** Says goodbye to the server; a stalled peer never answers. */
  end(): Promise<void>;
  /** Drops the socket now. */
  destroy(): void;
}

/** What a client reports: a notification, or that it dropped (an error or an end). */
export interface ListenerClientEvents {
  notification(channel: string, payload: string): void;
  dropped(): void;
}

export type OpenListenerClient = (
  url: string,
  timings: ListenerTimings,
  events: ListenerClientEvents,
) => ListenerClient;

/** One connection's session: its client, the channels it LISTENs to and the locks it holds. */
export class Session {
  readonly client: ListenerClient;
  readonly listening = new Set<string>();
  readonly held = new Set<string>();
  readonly run = serial();
  lost = false;
  heartbeat: NodeJS.Timeout | undefined;

  constructor(
    open: (events: ListenerClientEvents) => ListenerClient,
    notification: ListenerClientEvents["notification"],
    private readonly onLost: (session: Session) => void,
  ) {
    this.client = open({ notification, dropped: () => this.lose() });
  }

  /** Gives the connection up: an error, an end, a failed statement or a missed heartbeat. */
  readonly lose = (): void => {
    if (this.lost) return;
    this.lost = true;
    clearTimeout(this.heartbeat);
    this.client.end().catch(() => {});
    // A stalled peer never answers the goodbye: the socket goes now, not when TCP gives up.
    this.client.destroy();
    this.onLost(this);
  };

  /** Ends the connection, or destroys its socket if the peer has not answered within `ms`. */
  async end(ms: number): Promise<void> {
    clearTimeout(this.heartbeat);
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      this.client.end().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
    clearTimeout(timer);
    if (!ended) this.client.destroy();
  }
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

/**
 * A `pg.Client` for the listener: keepalive, its name, and every wait bounded by `deadlineMs`.
 * Made once pg is loaded (pg-driver.ts; at once when the database was opened on PostgreSQL).
 */
export function openPgClient(
  url: string,
  timings: ListenerTimings,
  events: ListenerClientEvents,
): ListenerClient {
  let made: pg.Client | undefined;
  const making = loadPgDriver().then(({ pg }) => {
    made = newPgClient(pg, url, timings, events);
    return made;
  });
  return {
    connect: async () => {
      await (await making).connect();
    },
    query: async <R extends object>(text: string, values?: unknown[]) => {
      const client = await making;
      return values === undefined ? client.query<R>(text) : client.query<R>(text, values);
    },
    end: async () => (await making).end(),
    destroy: () => {
      const socket = (made as unknown as { connection?: { stream?: { destroy(): void } } } | undefined)
        ?.connection?.stream;
      socket?.destroy();
    },
  };
}

function newPgClient(pg: Pg, url: string, timings: ListenerTimings, events: ListenerClientEvents): pg.Client {
  const client = new pg.Client({
    connectionString: url,
    keepAlive: true,
    application_name: LISTENER_APPLICATION_NAME,
    // A connection that does not come up, or a statement that is not answered, in time is a
    // stalled one: the open fails (and is retried), or the connection is given up.
    connectionTimeoutMillis: timings.deadlineMs,
    query_timeout: timings.deadlineMs,
  });
  client.on("error", () => events.dropped());
  client.on("end", () => events.dropped());
  client.on("notification", (msg) => events.notification(msg.channel, msg.payload ?? ""));
  return client;
}
