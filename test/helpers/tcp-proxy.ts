// A TCP proxy on 127.0.0.1 between a client and a server, for tests that drop a connection the way
// a network does: `cut()` destroys every connection through it, `refuse(true)` closes each new one
// at once (the server looks unreachable), and `target` can move to another server (a failover).
import net from "node:net";

export interface TcpProxy {
  url: string;
  /** Where new connections go (host 127.0.0.1). */
  target: number;
  /** Destroys every open connection, both sides. */
  cut(): void;
  refuse(on: boolean): void;
  /** How many connections it has taken (refused ones included). */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let refusing = false;
  let connections = 0;
  const server = net.createServer((client) => {
    connections++;
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(proxy.target, "127.0.0.1");
    open.add(client);
    open.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxy: TcpProxy = {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    target: targetPort,
    cut() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
    refuse(on) {
      refusing = on;
    },
    get connections() {
      return connections;
    },
    close() {
      proxy.cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
