// Reading a text/event-stream in a test, as a client would: fetch, then parse messages from the
// body as they arrive. `next()` waits for the next message (an event or a comment) up to a timeout.
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

export interface SseConnection {
  status: number;
  headers: Headers;
  /** The problem body when the answer was not a stream. */
  body?: any;
  next(timeoutMs?: number): Promise<SseMessage>;
  /** The next message that is an event (comments skipped). */
  nextEvent(timeoutMs?: number): Promise<SseMessage & { json: any }>;
  close(): void;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseConnection> {
  const abort = new AbortController();
  const res = await fetch(url, {
    headers: { accept: "text/event-stream", ...headers },
    signal: abort.signal,
  });
  if (!res.headers.get("content-type")?.startsWith("text/event-stream")) {
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : undefined,
      next: () => Promise.reject(new Error("not a stream")),
      nextEvent: () => Promise.reject(new Error("not a stream")),
      close: () => {},
    };
  }
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const queue: SseMessage[] = [];
  let pending: Promise<void> | undefined;
  const fill = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error("stream ended");
    buffer += decoder.decode(value, { stream: true });
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message: SseMessage = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) message.comment = line.slice(1).trim();
        else {
          const colon = line.indexOf(":");
          const name = line.slice(0, colon);
          const value = line.slice(colon + 1).replace(/^ /, "");
          if (name === "id" || name === "event") message[name] = value;
          if (name === "data")
            message.data = message.data === undefined ? value : `${message.data}\n${value}`;
        }
      }
      queue.push(message);
    }
  };
  const next = async (timeoutMs = 10_000): Promise<SseMessage> => {
    const until = Date.now() + timeoutMs;
    while (queue.length === 0) {
      pending ??= fill().finally(() => {
        pending = undefined;
      });
      const left = until - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        pending.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), Math.max(0, left));
        }),
      ]);
      clearTimeout(timer);
      if (timedOut && queue.length === 0) throw new Error(`no SSE message within ${timeoutMs} ms`);
    }
    return queue.shift() as SseMessage;
  };
  return {
    status: res.status,
    headers: res.headers,
    next,
    async nextEvent(timeoutMs = 10_000) {
      for (;;) {
        const m = await next(timeoutMs);
        if (m.comment === undefined) return { ...m, json: JSON.parse(m.data ?? "null") };
      }
    },
    close: () => abort.abort(),
  };
}
