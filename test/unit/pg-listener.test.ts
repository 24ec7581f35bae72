// The process's one LISTEN connection (src/db/pg-listener.ts) walked through its states with a
// scripted client and fake timers: no database. Each test restates a rule of the file's header:
// connecting, listening, reconnecting after an error or an end (250 ms, doubling up to 5 s),
// closed once nothing is followed; the heartbeat; the advisory locks taken, retried and released;
// one statement at a time. test/webhooks/listen-reconnect.test.ts and
// test/db/listener-connection.test.ts check the same on PostgreSQL.
import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createPgListener,
  LISTENER_TRANSITIONS,
  type ListenerClient,
  type ListenerClientEvents,
  type ListenerConnection,
  type ListenerTimings,
} from "../../src/db/pg-listener.ts";

const TIMINGS: ListenerTimings = { heartbeatMs: 5_000, deadlineMs: 4_000 };
const TRY_LOCK = "select pg_try_advisory_lock(hashtextextended($1, 0)) as ok";
const UNLOCK = "select pg_advisory_unlock(hashtextextended($1, 0))";

/** The database the scripted clients talk to: whether it answers, and who holds which lock. */
class FakeDatabase {
  reachable = true;
  /** Locks another session holds. */
  readonly heldElsewhere = new Set<string>();
  /** The next `select 1` fails (a stalled connection's query_timeout). */
  failNextProof = false;
  /** The next connection drops just after it connected, while it is set up. */
  dropDuringSetup = false;
  /** While set, connecting waits for it. */
  connectGate: Promise<void> | undefined;
  /** Called as each statement is sent, before it is answered. */
  onStatement: ((client: FakeClient, text: string) => void) | undefined;
  readonly clients: FakeClient[] = [];
  /** The most statements in flight at once on one client. */
  mostInFlight = 0;

  readonly open = (_url: string, _timings: ListenerTimings, events: ListenerClientEvents): ListenerClient => {
    const client = new FakeClient(this, events);
    this.clients.push(client);
    return client;
  };

  last(): FakeClient {
    const client = this.clients.at(-1);
    if (!client) throw new Error("no client opened");
    return client;
  }
}

class FakeClient implements ListenerClient {
  /** Each statement sent, as `text` or `text [values]`. */
  readonly statements: string[] = [];
  connected = false;
  /** Every statement fails from here (a connection the server has stopped answering). */
  broken = false;
  ended = false;
  destroyed = false;
  private inFlight = 0;

  constructor(
    private readonly db: FakeDatabase,
    private readonly events: ListenerClientEvents,
  ) {}

  async connect(): Promise<void> {
    await Promise.resolve();
    await this.db.connectGate;
    if (!this.db.reachable) throw new Error("connect ECONNREFUSED");
    this.connected = true;
    if (this.db.dropDuringSetup) {
      this.db.dropDuringSetup = false;
      this.events.dropped();
    }
  }

  async query<R extends object>(text: string, values?: unknown[]): Promise<{ rows: R[] }> {
    this.statements.push(values ? `${text} ${JSON.stringify(values)}` : text);
    this.db.onStatement?.(this, text);
    this.inFlight++;
    this.db.mostInFlight = Math.max(this.db.mostInFlight, this.inFlight);
    try {
      // A round trip: the answer comes after other callers had their chance to send.
      for (let i = 0; i < 3; i++) await Promise.resolve();
      if (this.broken || this.ended || this.destroyed)
        throw new Error("Client was closed and is not queryable");
      if (text === TRY_LOCK) {
        return { rows: [{ ok: !this.db.heldElsewhere.has(String(values?.[0])) } as unknown as R] };
      }
      if (text === "select 1" && this.db.failNextProof) {
        this.db.failNextProof = false;
        throw new Error("Query read timeout");
      }
      return { rows: [] };
    } finally {
      this.inFlight--;
    }
  }

  async end(): Promise<void> {
    this.ended = true;
  }

  destroy(): void {
    this.destroyed = true;
  }

  /** The server says something on `channel`. */
  notify(channel: string, payload: string): void {
    this.events.notification(channel, payload);
  }

  /** The connection drops (pg's `error` or `end`). */
  drop(): void {
    this.events.dropped();
  }

  /** The statements other than the heartbeat's `select 1`. */
  work(): string[] {
    return this.statements.filter((s) => s !== "select 1");
  }
}

/** A subscriber that writes down what it is told. */
function recorder() {
  const heard: string[] = [];
  return {
    heard,
    onNotify: (payload: string) => heard.push(`notify:${payload}`),
    onLost: () => heard.push("lost"),
  };
}

let db: FakeDatabase;
let listener: ListenerConnection;
/** Lets the statements in flight answer (each takes a few microtasks), without moving the clock. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  db = new FakeDatabase();
  listener = createPgListener("postgres://fake", TIMINGS, db.open);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the LISTEN connection's states", () => {
  it("is closed until a subscription, connecting while it opens, listening once it LISTENs", async () => {
    expect(listener.state).toBe("closed");
    expect(db.clients).toHaveLength(0);
    const sub = recorder();
    const subscribing = listener.listen("orders", sub);
    expect(listener.state).toBe("connecting");
    await subscribing;
    expect(listener.state).toBe("listening");
    expect(db.clients).toHaveLength(1);
    expect(db.last().work()).toEqual(['LISTEN "orders"']);

    db.last().notify("orders", "o_1");
    db.last().notify("mail", "m_1");
    expect(sub.heard).toEqual(["notify:o_1"]);
  });

  it("subscriptions made while it connects wait for the one connection", async () => {
    const [a, b] = [recorder(), recorder()];
    await Promise.all([listener.listen("one", a), listener.listen("two", b)]);
    expect(db.clients).toHaveLength(1);
    expect(db.last().work().sort()).toEqual(['LISTEN "one"', 'LISTEN "two"']);
    expect([...a.heard, ...b.heard]).toEqual([]);
  });

  it("a channel joins the open connection with a LISTEN, and leaves it with an UNLISTEN when its last subscriber goes", async () => {
    await listener.listen("keep", recorder());
    const first = await listener.listen("quotes", recorder());
    const second = await listener.listen("quotes", recorder());
    expect(db.last().work()).toEqual(['LISTEN "keep"', 'LISTEN "quotes"']);
    await first();
    expect(db.last().work()).toEqual(['LISTEN "keep"', 'LISTEN "quotes"']);
    await second();
    await second(); // a second call does nothing
    expect(db.last().work()).toEqual(['LISTEN "keep"', 'LISTEN "quotes"', 'UNLISTEN "quotes"']);
    expect(listener.state).toBe("listening");
  });

  for (const how of ["an error", "an end"] as const) {
    it(`after ${how}: reconnecting (subscribers told onLost), then listening again 250 ms later with onNotify("")`, async () => {
      const sub = recorder();
      await listener.listen("orders", sub);
      await listener.listen("mail", recorder());
      const dropped = db.last();
      dropped.drop(); // pg reports both the same way: the client's "error" and "end" events
      expect(listener.state).toBe("reconnecting");
      expect(sub.heard).toEqual(["lost"]);
      expect(dropped.ended && dropped.destroyed).toBe(true);

      await vi.advanceTimersByTimeAsync(249);
      expect(db.clients).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      await settle();
      expect(db.clients).toHaveLength(2);
      expect(listener.state).toBe("listening");
      expect(db.last().work()).toEqual(['LISTEN "orders"', 'LISTEN "mail"']);
      expect(sub.heard).toEqual(["lost", "notify:"]);
      // What the dropped connection still delivers reaches the subscribers; a second drop of it
      // changes nothing.
      dropped.drop();
      expect(listener.state).toBe("listening");
    });
  }

  it("a retry that fails waits twice as long, up to 5 s, and stays reconnecting until one succeeds", async () => {
    const sub = recorder();
    await listener.listen("orders", sub);
    db.reachable = false;
    db.last().drop();
    const opened: number[] = [];
    for (let ms = 50; ms <= 25_000; ms += 50) {
      const before = db.clients.length;
      await vi.advanceTimersByTimeAsync(50);
      if (db.clients.length > before) opened.push(ms);
    }
    const gaps = opened.map((at, i) => at - (opened[i - 1] ?? 0));
    expect(gaps).toEqual([250, 500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
    expect(listener.state).toBe("reconnecting");
    expect(sub.heard).toEqual(["lost"]);

    db.reachable = true;
    await vi.advanceTimersByTimeAsync(5_000);
    await settle();
    expect(listener.state).toBe("listening");
    expect(sub.heard).toEqual(["lost", "notify:"]);
  });

  it('a database unreachable at the start: the subscription resolves, is told onLost at once and onNotify("") once it is back', async () => {
    db.reachable = false;
    const sub = recorder();
    await listener.listen("orders", sub);
    expect(listener.state).toBe("reconnecting");
    expect(sub.heard).toEqual(["lost"]);
    // A subscription made while it is down is told the same.
    const late = recorder();
    await listener.listen("mail", late);
    expect(late.heard).toEqual(["lost"]);

    db.reachable = true;
    await vi.advanceTimersByTimeAsync(250);
    await settle();
    expect(listener.state).toBe("listening");
    expect(db.last().work()).toEqual(['LISTEN "orders"', 'LISTEN "mail"']);
    expect(sub.heard).toEqual(["lost", "notify:"]);
    expect(late.heard).toEqual(["lost", "notify:"]);
  });

  it("a connection that drops while it is set up is not used: the retry opens another", async () => {
    db.dropDuringSetup = true;
    const sub = recorder();
    await listener.listen("orders", sub);
    expect(listener.state).toBe("reconnecting");
    expect(sub.heard).toEqual(["lost"]);
    const flaky = db.last();
    expect(flaky.ended).toBe(true);
    await vi.advanceTimersByTimeAsync(250);
    await settle();
    expect(listener.state).toBe("listening");
    expect(db.last()).not.toBe(flaky);
    expect(sub.heard).toEqual(["lost", "notify:"]);
  });

  it("a channel subscribed while a retry is being set up is LISTENed to on the new connection", async () => {
    await listener.holdLock("locked:a");
    await listener.listen("orders", recorder());
    const late = recorder();
    let subscribing: Promise<unknown> | undefined;
    db.onStatement = (client, text) => {
      // The retry's connection has LISTENed to "orders" and is taking the lock: too late for
      // its loop over the channels.
      if (client !== db.clients[0] && text === TRY_LOCK) subscribing ??= listener.listen("late", late);
    };
    db.last().drop();
    await vi.advanceTimersByTimeAsync(250);
    await settle();
    await subscribing;
    expect(listener.state).toBe("listening");
    expect(db.last().work()).toContain('LISTEN "late"');
    db.last().notify("late", "x");
    expect(late.heard).toEqual(["lost", "notify:", "notify:x"]);
  });

  it("closes once nothing is followed and no lock is held, and opens anew for a later subscription", async () => {
    const stop = await listener.listen("orders", recorder());
    const release = await listener.holdLock("locked:a");
    await stop();
    expect(listener.state).toBe("listening"); // the lock still holds it open
    const first = db.last();
    await release();
    expect(listener.state).toBe("closed");
    expect(first.ended).toBe(true);
    // No heartbeat or retry outlives it.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(db.clients).toHaveLength(1);
    expect(first.statements.filter((s) => s === "select 1")).toEqual([]);

    await listener.listen("orders", recorder());
    expect(listener.state).toBe("listening");
    expect(db.clients).toHaveLength(2);
  });

  it("everyone leaving while it reconnects closes it: no retry follows", async () => {
    const stop = await listener.listen("orders", recorder());
    db.last().drop();
    expect(listener.state).toBe("reconnecting");
    await stop();
    expect(listener.state).toBe("closed");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(db.clients).toHaveLength(1);
  });

  it("everyone leaving while a retry connects: the connection that comes up is ended", async () => {
    const stop = await listener.listen("orders", recorder());
    let open = () => {};
    db.connectGate = new Promise<void>((resolve) => {
      open = resolve;
    });
    db.last().drop();
    await vi.advanceTimersByTimeAsync(250); // the retry's client is connecting
    expect(db.clients).toHaveLength(2);
    expect(listener.state).toBe("reconnecting");
    await stop();
    expect(listener.state).toBe("closed");
    open();
    await settle();
    expect(listener.state).toBe("closed");
    expect(db.last().ended).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(db.clients).toHaveLength(2);
  });
});

describe("the heartbeat", () => {
  it("proves the connection every heartbeatMs with select 1, and loses it when the proof fails", async () => {
    const sub = recorder();
    await listener.listen("orders", sub);
    const client = db.last();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.statements.filter((s) => s === "select 1")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.statements.filter((s) => s === "select 1")).toHaveLength(2);

    db.failNextProof = true; // a stalled peer: the query times out
    await vi.advanceTimersByTimeAsync(5_000);
    expect(listener.state).toBe("reconnecting");
    expect(client.destroyed).toBe(true);
    expect(sub.heard).toEqual(["lost"]);
    await vi.advanceTimersByTimeAsync(250);
    await settle();
    expect(listener.state).toBe("listening");
    expect(sub.heard).toEqual(["lost", "notify:"]);
  });

  it("a LISTEN that fails loses the connection too", async () => {
    await listener.listen("orders", recorder());
    const client = db.last();
    client.broken = true;
    const sub = recorder();
    await listener.listen("mail", sub);
    expect(listener.state).toBe("reconnecting");
    // Told as one of everyone when the LISTEN failed, and again as a subscription made while down.
    expect(sub.heard).toEqual(["lost", "lost"]);
  });
});

describe("advisory locks on the connection's session", () => {
  it("a lock is taken on the connection and released by its one unlock", async () => {
    const release = await listener.holdLock("locked:a");
    expect(listener.state).toBe("listening");
    expect(db.last().work()).toEqual([`${TRY_LOCK} ["locked:a"]`]);
    await release();
    await release(); // a second call does nothing
    expect(db.last().work()).toEqual([`${TRY_LOCK} ["locked:a"]`, `${UNLOCK} ["locked:a"]`]);
    expect(listener.state).toBe("closed");
  });

  it("a lock another session holds is tried again at each heartbeat, in place of select 1, until taken", async () => {
    await listener.listen("orders", recorder());
    db.heldElsewhere.add("locked:a"); // the old backend of a connection cut without PostgreSQL noticing
    await listener.holdLock("locked:a");
    const client = db.last();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.statements.slice(-1)).toEqual([`${TRY_LOCK} ["locked:a"]`]);
    db.heldElsewhere.delete("locked:a");
    await vi.advanceTimersByTimeAsync(5_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(client.statements.slice(-3)).toEqual([
      `${TRY_LOCK} ["locked:a"]`,
      `${TRY_LOCK} ["locked:a"]`,
      "select 1",
    ]);
  });

  it("the locks are taken again by the new session after a reconnect", async () => {
    await listener.holdLock("locked:a");
    await listener.holdLock("locked:b");
    await listener.listen("orders", recorder());
    db.last().drop();
    await vi.advanceTimersByTimeAsync(250);
    await settle();
    expect(listener.state).toBe("listening");
    expect(db.last().work()).toEqual([
      'LISTEN "orders"',
      `${TRY_LOCK} ["locked:a"]`,
      `${TRY_LOCK} ["locked:b"]`,
    ]);
  });

  it("a lock asked for while the connection is down is taken when it is back", async () => {
    await listener.listen("orders", recorder());
    db.reachable = false;
    db.last().drop();
    await listener.holdLock("locked:a");
    expect(listener.state).toBe("reconnecting");
    db.reachable = true;
    await vi.advanceTimersByTimeAsync(250);
    await settle();
    expect(db.last().work()).toEqual(['LISTEN "orders"', `${TRY_LOCK} ["locked:a"]`]);
  });
});

describe("one statement at a time", () => {
  it("subscriptions, locks, releases and heartbeats never overlap on the connection", async () => {
    const fast = createPgListener("postgres://fake", { heartbeatMs: 1, deadlineMs: 4_000 }, db.open);
    await fast.listen("keep", recorder());
    const names = Array.from({ length: 20 }, (_, i) => `locked:${i}`);
    const ticking = vi.advanceTimersByTimeAsync(50);
    const stops = await Promise.all([
      ...names.map((name) => fast.holdLock(name)),
      ...names.map((name) => fast.listen(`c_${name.replace(":", "_")}`, recorder())),
    ]);
    await Promise.all(stops.map((stop) => stop()));
    await ticking;
    expect(db.mostInFlight).toBe(1);
    const client = db.last();
    for (const name of names) {
      expect(client.statements).toContain(`${TRY_LOCK} ["${name}"]`);
      expect(client.statements).toContain(`${UNLOCK} ["${name}"]`);
    }
  });
});

describe("the transitions", () => {
  it("the file's header names the same states, in the same order", async () => {
    const source = await readFile(new URL("../../src/db/pg-listener.ts", import.meta.url), "utf8");
    const named = [...source.matchAll(/^\/\/ \| (\w+) +\|/gm)].map((m) => m[1]).filter((s) => s !== "state");
    expect(named).toEqual(Object.keys(LISTENER_TRANSITIONS));
  });

  it("are written down for every state; each walked above", () => {
    expect(LISTENER_TRANSITIONS).toEqual({
      closed: ["connecting"],
      connecting: ["listening", "reconnecting"],
      listening: ["reconnecting", "closed"],
      reconnecting: ["listening", "reconnecting", "closed"],
    });
  });
});
