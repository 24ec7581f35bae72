// Two brides can never take the same last place (CONTRACT 12, Public booking), across API
// processes: two `--role api` processes on one PostgreSQL database each take bookings of one
// start with one place, at the same time; exactly one is 201 and every other a 409 naming the
// start. (In one process, and on PGlite, test/booking/public.test.ts races them too.)
// PostgreSQL only: PGlite serves one process.
import { describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client.ts";
import { freePort } from "../helpers/ports.ts";
import { childEnv, processBackends, runCliJson, startService } from "../helpers/processes.ts";

const { backends, track } = processBackends("last-slot");

describe.skipIf(!process.env.TEST_DATABASE_URL).each(backends)(
  "two API processes on $name",
  { timeout: 180_000 },
  ({ db }) => {
    it("of twelve bookings of a start with one place, sent to both at once, exactly one is 201", async () => {
      const dbEnv = await db();
      const api = async () => {
        const port = await freePort();
        const env = childEnv({ ...dbEnv, PORT: String(port), HOST: "127.0.0.1" });
        track(await startService(env, ["--role", "api"]));
        return { env, client: apiClient(`http://127.0.0.1:${port}`) };
      };
      const [a, b] = await Promise.all([api(), api()]);
      const email = `last-slot-${Date.now()}@example.test`;
      const vendor = await runCliJson(a.env, [
        "vendor",
        "create",
        "--name",
        "Brautmoden Anna",
        "--email",
        email,
        "--password",
        "pw-123456789",
      ]);
      const { key } = await runCliJson(a.env, ["api-key", "create", "--vendor", email, "--name", "POS"]);
      const settings = await a.client.put(
        "/api/vendor/booking/settings",
        { timeZone: "Europe/Berlin", types: { CONSULTATION: { capacity: 1, minNoticeMinutes: 0 } } },
        { key },
      );
      expect(settings.status).toBe(200);
      const free = await b.client.get("/api/vendor/availability?type=CONSULTATION", { key });
      expect(free.status).toBe(200);
      const start: string = free.body.slots[0];
      expect(start).toEqual(expect.any(String));

      const path = `/api/public/vendors/${vendor.id}/bookings`;
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 === 0 ? a : b).client.post(path, {
            type: "CONSULTATION",
            start,
            name: `Bride ${i}`,
            email: `bride-${i}-${Date.now()}@example.test`,
          }),
        ),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array(11).fill(409)]);
      for (const refused of answers.filter((r) => r.status === 409)) {
        expect(refused.body.code).toBe("slot_taken");
        expect(refused.body.detail).toContain(new Date(start).toISOString());
      }
      // One appointment at that start, and the start is no longer offered by either process.
      const booked = await a.client.get(`/api/vendor/appointments?from=${start.slice(0, 10)}`, { key });
      expect(booked.body.appointments.filter((x: { date: string }) => x.date === start)).toHaveLength(1);
      const after = await b.client.get("/api/vendor/availability?type=CONSULTATION", { key });
      expect(after.body.slots).not.toContain(start);
    });
  },
);
