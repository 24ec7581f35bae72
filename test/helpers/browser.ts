// A tiny browser for page tests: real HTTP, a cookie jar, no automatic redirects, and form
// posts with the CSRF token read from the page as a browser would submit it.
export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async get(path: string): Promise<PageResponse> {
    return this.send("GET", path);
  }

  async post(path: string, form: Record<string, string | string[]>): Promise<PageResponse> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
    return this.send("POST", path, body.toString());
  }

  /** Submits the first form of a page with its hidden fields plus `extra` (like clicking a button). */
  async submit(page: PageResponse, extra: Record<string, string>): Promise<PageResponse> {
    const action = /<form method="post" action="([^"]+)"/.exec(page.text)?.[1];
    if (!action) throw new Error(`no form on page: ${page.text.slice(0, 300)}`);
    return this.post(decodeEntities(action), { ...hiddenFields(page.text), ...extra });
  }

  private async send(method: string, path: string, body?: string): Promise<PageResponse> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
    const url = path.startsWith("http") ? path : this.baseUrl + path;
    const res = await fetch(url, { method, headers, body, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) this.store(line);
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get("location"),
    };
  }

  private store(line: string): void {
    const [pair, ...attrs] = line.split(";");
    const eq = pair?.indexOf("=") ?? -1;
    if (!pair || eq < 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v] = a.trim().split("=");
      if (k?.toLowerCase() === "max-age") return Number(v) <= 0;
      if (k?.toLowerCase() === "expires") return Date.parse(v ?? "") <= Date.now();
      return false;
    });
    if (expired || value === "") this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

export function decodeEntities(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

export function hiddenFields(page: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    out[decodeEntities(m[1] ?? "")] = decodeEntities(m[2] ?? "");
  }
  return out;
}
