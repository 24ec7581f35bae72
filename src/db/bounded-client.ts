// A pg client whose statements have a read deadline (CONTRACT 9: a frozen database answers 503
// within seconds, it never hangs a request). When a client has statements outstanding and the
// server has sent no answer for `limitMs`, they all fail with "Query read timeout" and the
// connection is dropped: the server may never answer, and later statements on the connection (a
// ROLLBACK, the next request) would queue behind them. The pool discards the client when it
// comes back.
//
// Why not pg's own `query_timeout`: it wraps every statement's callback in a closure (and arms a
// timer), and under load that made V8 promote almost every answer's rows out of the young
// generation (the order list: ~80 KB promoted per request with it, ~1 KB without; a loop of that
// statement ran ~30 % slower; test/db/young-answers.test.ts). Here one unref'd interval per pool
// looks at the clients that wait instead, and a statement costs a counter, a time stamp and a
// bound callback (see answerThen).
import { performance } from "node:perf_hooks";
import type pg from "pg";
import type { Pg } from "./pg-driver.ts";

export const QUERY_TIMEOUT_MESSAGE = "Query read timeout";

/** What ReadDeadlines needs of a client. */
interface Watched {
  readonly lastProgressAt: number;
  abandon(reason: Error): void;
}

/** The clients of one pool that wait for an answer, checked a few times per `limitMs`. */
export class ReadDeadlines {
  private readonly waiting = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;
  /** How often to look: a deadline is noticed at most this late. */
  readonly checkEveryMs: number;

  constructor(readonly limitMs: number) {
    this.checkEveryMs = Math.min(500, Math.max(10, Math.floor(limitMs / 8)));
  }

  /** Clients waiting for an answer now. */
  get watching(): number {
    return this.waiting.size;
  }

  /** Whether the check runs (only while some client waits). */
  get ticking(): boolean {
    return this.timer !== undefined;
  }

  /** Called by a client whose first outstanding statement was just sent. */
  watch(client: Watched): void {
    this.waiting.add(client);
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), this.checkEveryMs);
      this.timer.unref();
    }
  }

  /** Called by a client whose last outstanding statement was answered. */
  unwatch(client: Watched): void {
    this.waiting.delete(client);
  }

  /** Stops looking (the pool is closing). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }

  private check(): void {
    const now = performance.now();
    for (const client of this.waiting) {
      if (now - client.lastProgressAt >= this.limitMs) {
        this.waiting.delete(client);
        client.abandon(new Error(QUERY_TIMEOUT_MESSAGE));
      }
    }
    // Idle pools keep no timer ticking.
    if (this.waiting.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

type Callback = (...answer: unknown[]) => unknown;

/**
 * The statement's callback, told the client first. Bound per statement rather than wrapped in a
 * closure: with a closure (as pg's own query_timeout has), the answers' rows survived scavenges
 * and were promoted by the megabyte under load (measured with --trace-gc-nvp); bound, they die
 * young, as without a wrapper.
 */
function answerThen(this: { answered(): void }, callback: Callback, ...answer: unknown[]): unknown {
  this.answered();
  return callback(...answer);
}

export type BoundedClientConfig = pg.ClientConfig & {
  readDeadlines?: ReadDeadlines;
  /** Send named statements unnamed: the pool is behind a transaction pooler (client.ts). */
  unnamedStatements?: boolean;
};

export type BoundedClient = InstanceType<ReturnType<typeof boundedClientOf>>;

const classes = new WeakMap<Pg, ReturnType<typeof boundedClientOf>>();

/**
 * The BoundedClient class over `pg`'s Client, made once per `pg`: pg is loaded only on PostgreSQL
 * (pg-driver.ts, docs/decisions/0016).
 */
export function boundedClientClass(pg: Pg): ReturnType<typeof boundedClientOf> {
  let made = classes.get(pg);
  if (!made) {
    made = boundedClientOf(pg);
    classes.set(pg, made);
  }
  return made;
}

function boundedClientOf(pg: Pg) {
  return class BoundedClient extends pg.Client {
    private readonly deadlines: ReadDeadlines | undefined;
    private readonly unnamed: boolean;
    /** Statements sent and not answered yet. */
    private outstanding = 0;
    /** When the oldest outstanding statement was sent, or the last answer came, whichever is later. */
    lastProgressAt = 0;
    private readonly onAnswer = () => this.answered();

    constructor(config: BoundedClientConfig) {
      super(config);
      this.deadlines = config.readDeadlines;
      this.unnamed = config.unnamedStatements === true;
      // A connection dropped while the client is checked out must not crash the process: the
      // statement in progress fails, and the pool discards the client when it comes back.
      this.on("error", () => {});
    }

    // pg's query(config, values?, callback?): with a callback (pg-pool's query) or without (promise
    // form: a checked-out client, as in transactions).
    override query(config: unknown, values?: unknown, callback?: unknown): never {
      const run = super.query as (c: unknown, v?: unknown, cb?: unknown) => unknown;
      // Behind a transaction pooler the next statement may reach another server connection, where
      // a name prepared here means nothing or another statement: the same text, unnamed.
      if (this.unnamed && (config as { name?: string } | null)?.name)
        config = { ...(config as object), name: undefined };
      if (!this.deadlines) return run.call(this, config, values, callback) as never;
      // A bound function, not a closure: see answerThen.
      if (typeof callback === "function") callback = answerThen.bind(this, callback as Callback);
      else if (typeof values === "function") values = answerThen.bind(this, values as Callback);
      else {
        const result = run.call(this, config, values);
        // A submittable with a callback of its own returns itself and is not timed.
        if (result instanceof Promise) {
          this.sent();
          result.then(this.onAnswer, this.onAnswer);
        }
        return result as never;
      }
      this.sent();
      try {
        return run.call(this, config, values, callback) as never;
      } catch (err) {
        this.answered(); // refused before it was sent (a malformed config): nothing to wait for
        throw err;
      }
    }

    /** Fails every outstanding statement with `reason` and drops the connection. */
    abandon(reason: Error): void {
      (
        this as unknown as { connection: { stream: { destroy(err: Error): void } } }
      ).connection.stream.destroy(reason);
    }

    private sent(): void {
      if (this.outstanding++ === 0) {
        this.lastProgressAt = performance.now();
        this.deadlines?.watch(this);
      }
    }

    /** @internal Called once per statement sent, when its answer (or its error) came. */
    answered(): void {
      this.lastProgressAt = performance.now();
      if (--this.outstanding === 0) this.deadlines?.unwatch(this);
    }
  };
}
