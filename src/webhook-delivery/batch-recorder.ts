// Group commit for attempt records: a dispatcher's finished attempts that take no transaction
// (successes, retries after a neutral answer) queue here, and one statement records each batch
// (attempts-batch.repository.ts). A record queued while no write is running is written on the
// next turn of the event loop, so a lone delivery waits for nothing; while a write runs, the
// attempts finishing meanwhile gather and go together in the next one, so batches grow with load.
//
// What this keeps (CONTRACT 7, at-least-once): an attempt counts as in flight (its lease held)
// until its batch committed; a dispatcher that dies after the POST and before the write leaves
// the lease to end, and the delivery is sent again. A record whose claim went stale (its lease
// ended and another claim took the row) writes nothing, whatever else is in its batch.
import type { Db } from "../db/client.ts";
import type { AttemptRecord, Recorded } from "./attempts.repository.ts";
import { recordAttemptBatch } from "./attempts-batch.repository.ts";

export interface BatchRecorder {
  /** Resolves once the record's batch committed: `recorded` false for a stale claim. */
  record(record: AttemptRecord): Promise<Recorded>;
}

interface Waiting {
  record: AttemptRecord;
  resolve(r: Recorded): void;
  reject(err: unknown): void;
}

export interface BatchRecorderOptions {
  /** The most records one statement carries. */
  maxBatch?: number;
  /**
   * Records one attempt on its own: used when a batch's statement fails, so one record the
   * database refuses cannot keep the others in its batch from being written.
   */
  recordOne(record: AttemptRecord): Promise<Recorded>;
}

export function createBatchRecorder(db: Db, options: BatchRecorderOptions): BatchRecorder {
  const maxBatch = options.maxBatch ?? 200;
  let queue: Waiting[] = [];
  let writing = false;
  let scheduled = false;

  async function writeBatch(batch: Waiting[]) {
    let written: Set<string>;
    try {
      written = await recordAttemptBatch(
        db,
        batch.map((w) => w.record),
      );
    } catch {
      // Each on its own, so only the record at fault fails (and its lease ends: sent again).
      await Promise.all(batch.map((w) => options.recordOne(w.record).then(w.resolve, w.reject)));
      return;
    }
    for (const w of batch) w.resolve({ recorded: written.has(w.record.deliveryId) });
  }

  async function drain() {
    scheduled = false;
    if (writing) return;
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        await writeBatch(batch);
      }
    } finally {
      writing = false;
    }
  }

  return {
    record(record) {
      return new Promise<Recorded>((resolve, reject) => {
        queue.push({ record, resolve, reject });
        if (!writing && !scheduled) {
          scheduled = true;
          setImmediate(() => void drain());
        }
      });
    },
  };
}
