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
// notifications could still arrive.
//
// The same session holds the process's advisory locks (`holdLock`): a lock lives exactly as long
// as the session, so another process reads from pg_locks whether its holder is still there (a
// webhook lease's holder, src/webhook-delivery/outbox.repository.ts requeueAbandoned). They are
// taken again after each reconnect, and retried on each heartbeat while another session still
// has one (the old backend of a connection cut without PostgreSQL noticing yet).
//
// The states of the connection (`ListenerConnection.state`; test/unit/pg-listener.test.ts walks
// each transition with a scripted client):
//
// | state        | what it is                                   | leaves for                                  |
// |--------------|----------------------------------------------|---------------------------------------------|
// | closed       | no connection: nothing followed, no lock     | connecting: a subscription or a lock        |
// | connecting   | the first connection being opened; callers  | listening: it is up; reconnecting: it       |
// |              | wait for it                                  | failed                                      |
// | listening    | up: LISTENs to every channel, holds the      | reconnecting: an error, an end, a failed    |
// |              | locks it can, proves itself every heartbeat  | statement or heartbeat; closed: everyone    |
// |              |                                              | left                                        |
// | reconnecting | down: subscribers were told `onLost`; a new  | listening: a retry succeeded (subscribers   |
// |              | connection is tried after 250 ms, doubling   | called `onNotify("")`); reconnecting: it    |
// |              | up to 5 s                                    | failed; closed: everyone left               |
//
// Every statement of a connection goes through its `run`, one at a time (listener-session.ts,
// `serial`).
import { type ListenerTimings, type OpenListenerClient, openPgClient, Session } from "./listener-session.ts";

export {
  LISTENER_APPLICATION_NAME,
  type ListenerClient,
  type ListenerClientEvents,
  type ListenerTimings,
  type OpenListenerClient,
} from "./listener-session.ts";

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

export const DEFAULT_LISTENER_TIMINGS: ListenerTimings = { heartbeatMs: 5_000, deadlineMs: 4_000 };

export type ListenerStateName = "closed" | "connecting" | "listening" | "reconnecting";

type Connecting = { name: "connecting"; opening: Promise<void> };
type Reconnecting = { name: "reconnecting"; delayMs: number; timer: NodeJS.Timeout | undefined };
type State = { name: "closed" } | Connecting | { name: "listening"; session: Session } | Reconnecting;

export const LISTENER_TRANSITIONS: Readonly<Record<ListenerStateName, readonly ListenerStateName[]>> = {
  closed: ["connecting"],
  connecting: ["listening", "reconnecting"],
  listening: ["reconnecting", "closed"],
  reconnecting: ["listening", "reconnecting", "closed"],
};

const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 5_000;

export function createPgListener(
  url: string,
  timings: ListenerTimings = DEFAULT_LISTENER_TIMINGS,
  openClient: OpenListenerClient = openPgClient,
): ListenerConnection {
  return new ListenerConnection(url, timings, openClient);
}

export class ListenerConnection implements PgListener {
  private current: State = { name: "closed" };
  private readonly channels = new Map<string, Set<Subscriber>>();
  /** The advisory locks the session is to hold (their names). */
  private readonly locks = new Set<string>();

  constructor(
    private readonly url: string,
    private readonly timings: ListenerTimings = DEFAULT_LISTENER_TIMINGS,
    private readonly openClient: OpenListenerClient = openPgClient,
  ) {}

  get state(): ListenerStateName {
    return this.current.name;
  }

  async listen(channel: string, subscriber: Subscriber): Promise<() => Promise<void>> {
    const subs = this.channels.get(channel) ?? new Set<Subscriber>();
    this.channels.set(channel, subs);
    subs.add(subscriber);
    await this.ensureOpen(); // a connection opened from here on LISTENs to every channel
    const up = this.up();
    if (up && !up.listening.has(channel)) {
      up.listening.add(channel);
      // A failure here is the connection failing (or stalled): lost, and the reconnect LISTENs.
      await up.run(() => up.client.query(`LISTEN ${escapeIdentifier(channel)}`)).catch(up.lose);
    }
    if (this.current.name === "reconnecting") subscriber.onLost?.();
    let stopped = false;
    return async () => {
      if (stopped) return;
      stopped = true;
      subs.delete(subscriber);
      if (subs.size > 0 || this.channels.get(channel) !== subs) return;
      this.channels.delete(channel);
      const session = this.up();
      if (this.wanted()) {
        if (session?.listening.delete(channel)) {
          const unlisten = `UNLISTEN ${escapeIdentifier(channel)}`;
          await session.run(() => session.client.query(unlisten)).catch(() => {});
        }
        return;
      }
      // Nobody follows anything: the connection closes (a later subscription opens a new one).
      await this.closeIfUnwanted();
    };
  }

  async holdLock(name: string): Promise<() => Promise<void>> {
    this.locks.add(name);
    await this.ensureOpen();
    const up = this.up();
    if (up && !up.held.has(name)) await up.run(() => this.takeLocks(up)).catch(up.lose);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.locks.delete(name);
      const session = this.up();
      if (session?.held.delete(name)) {
        const unlock = "select pg_advisory_unlock(hashtextextended($1, 0))";
        await session.run(() => session.client.query(unlock, [name])).catch(() => {});
      }
      await this.closeIfUnwanted();
    };
  }

  private enter(next: State): void {
    if (!LISTENER_TRANSITIONS[this.current.name].includes(next.name)) {
      throw new Error(`the LISTEN connection cannot go from ${this.current.name} to ${next.name}`);
    }
    this.current = next;
  }

  private wanted(): boolean {
    return this.channels.size > 0 || this.locks.size > 0;
  }

  private everyone(): Subscriber[] {
    return [...this.channels.values()].flatMap((subs) => [...subs]);
  }

  /** The session while listening. */
  private up(): Session | undefined {
    return this.current.name === "listening" ? this.current.session : undefined;
  }

  /** Opens the connection unless it is up or down (then the reconnect is under way). */
  private async ensureOpen(): Promise<void> {
    if (this.current.name === "connecting") return this.current.opening;
    if (this.current.name !== "closed") return;
    // A database that cannot be reached yet does not stop the caller from starting (the API
    // answers 503 meanwhile): the connection is down until a retry reaches it.
    const state: Connecting = { name: "connecting", opening: Promise.resolve() };
    state.opening = this.attempt(state, FIRST_RETRY_MS);
    this.enter(state);
    return state.opening;
  }

  private scheduleReconnect(delayMs: number): void {
    if (!this.wanted()) {
      this.enter({ name: "closed" });
      return;
    }
    const state: Reconnecting = { name: "reconnecting", delayMs, timer: undefined };
    state.timer = setTimeout(() => {
      state.timer = undefined;
      void this.attempt(state, Math.min(delayMs * 2, LAST_RETRY_MS));
    }, delayMs);
    this.enter(state);
  }

  /**
   * Opens a session for `from` (connecting or reconnecting): listening if `from` is still the
   * state when it is up, else it is ended (everyone left meanwhile); on failure, a retry after
   * `retryMs`.
   */
  private async attempt(from: Connecting | Reconnecting, retryMs: number): Promise<void> {
    const session = await this.open().catch(() => undefined);
    // Lost between its set-up and here counts as failed too.
    if (!session || session.lost) {
      if (this.current === from) this.scheduleReconnect(retryMs);
      return;
    }
    if (this.current !== from) {
      await session.end(this.timings.deadlineMs);
      return;
    }
    this.enter({ name: "listening", session });
    this.beat(session);
    // A channel subscribed while the connection was down and past its loop over the channels
    // (taking the locks) was not LISTENed to; from here on, a subscription LISTENs by itself.
    for (const channel of this.channels.keys()) {
      if (session.listening.has(channel)) continue;
      session.listening.add(channel);
      session.run(() => session.client.query(`LISTEN ${escapeIdentifier(channel)}`)).catch(session.lose);
    }
    if (from.name === "reconnecting") for (const s of this.everyone()) s.onNotify("");
  }

  /** A new session that LISTENs to every channel and holds the locks it can, or a failure. */
  private async open(): Promise<Session> {
    const session = new Session(
      (events) => this.openClient(this.url, this.timings, events),
      (channel, payload) => {
        for (const s of this.channels.get(channel) ?? []) s.onNotify(payload);
      },
      (s) => this.lost(s),
    );
    const { client } = session;
    try {
      await client.connect();
      for (const channel of this.channels.keys()) {
        await session.run(() => client.query(`LISTEN ${escapeIdentifier(channel)}`));
        session.listening.add(channel);
      }
      await session.run(() => this.takeLocks(session));
      if (session.lost) throw new Error("the LISTEN connection dropped while it was set up");
      return session;
    } catch (err) {
      session.lost = true;
      client.end().catch(() => {});
      throw err;
    }
  }

  /** The session dropped, failed a statement or missed its heartbeat. */
  private lost(session: Session): void {
    if (this.up() !== session) return; // not up yet: the attempt that opens it retries by itself
    this.scheduleReconnect(FIRST_RETRY_MS);
    for (const s of this.everyone()) s.onLost?.();
  }

  /** Takes the locks wanted and not held yet; one still held elsewhere is left for a later try. */
  private async takeLocks(session: Session): Promise<void> {
    for (const name of this.locks) {
      if (session.held.has(name)) continue;
      const { rows } = await session.client.query<{ ok: boolean }>(
        "select pg_try_advisory_lock(hashtextextended($1, 0)) as ok",
        [name],
      );
      if (rows[0]?.ok) session.held.add(name);
    }
  }

  /** Every heartbeatMs: the locks still missing, or else `select 1`; a failure loses the session. */
  private beat(session: Session): void {
    session.heartbeat = setTimeout(() => {
      if (session.lost || this.up() !== session) return;
      const proof = session.run<unknown>(() =>
        session.held.size < this.locks.size ? this.takeLocks(session) : session.client.query("select 1"),
      );
      proof.then(() => this.beat(session), session.lose);
    }, this.timings.heartbeatMs);
    session.heartbeat.unref();
  }

  /** Closes the connection once nothing is followed and no lock is held. */
  private async closeIfUnwanted(): Promise<void> {
    if (this.wanted()) return;
    const was = this.current;
    // Connecting, someone still waits for it (a subscription or a lock is only given up after).
    if (was.name === "closed" || was.name === "connecting") return;
    this.enter({ name: "closed" });
    if (was.name === "reconnecting") clearTimeout(was.timer);
    if (was.name === "listening") await was.session.end(this.timings.deadlineMs);
  }
}

/** pg's escapeIdentifier, without loading pg for it (the listener's tests script the client). */
function escapeIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
