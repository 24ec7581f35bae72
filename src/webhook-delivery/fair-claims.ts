// How a dispatcher shares its free capacity between endpoints (CONTRACT 7: one endpoint's backlog
// or hung receiver never delays another endpoint's deliveries). Each endpoint may have only so
// many attempts in flight (circuit-breaker.ts decides how many: its concurrency cap, one probe,
// or none while its circuit is open), and the free capacity is dealt round-robin, one claim per
// endpoint per round in a shuffled order, so a large backlog takes no more than its share.
// The claim statement (claim.repository.ts claimDue) deals the same way in SQL, so a claim is
// one round trip; this function is the rule written out. Its own tests pin it, and a property test
// (test/webhooks/batch-recorder.test.ts) holds the statement to it on generated endpoints.

export interface EndpointLoad {
  webhookId: string;
  /** Attempts it may still start now: its slots minus those in flight (any dispatcher). */
  free: number;
}

export interface Quota {
  webhookId: string;
  n: number;
}

export function shareClaims(
  endpoints: readonly EndpointLoad[],
  limit: number,
  random = Math.random,
): Quota[] {
  const order = endpoints.filter((e) => e.free > 0).map((e) => ({ ...e, n: 0 }));
  // Fisher-Yates, so no endpoint is always served first when capacity runs out mid-round.
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as (typeof order)[number], order[i] as (typeof order)[number]];
  }
  let left = limit;
  let open = order;
  while (left > 0 && open.length > 0) {
    for (const e of open) {
      if (left === 0) break;
      e.n++;
      left--;
    }
    open = open.filter((e) => e.n < e.free);
  }
  return order.filter((e) => e.n > 0).map(({ webhookId, n }) => ({ webhookId, n }));
}
