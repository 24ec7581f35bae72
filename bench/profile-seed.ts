import { seedOrders } from "./seed.ts";

const key = process.argv[2] as string;
seedOrders({ url: process.argv[3] } as never, { readKey: key, writeKey: key }).then(() =>
  console.log("seeded"),
);
