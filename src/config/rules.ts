// The rules an environment variable's text follows. Each rule parses a text into its value or says
// what the text must be; the same rule says in words what it accepts, for the README's table and
// .env.example (scripts/config-docs.ts), so the documents cannot promise another rule than the
// one applied. src/config/variables.ts says which variable follows which rule.
import path from "node:path";

/** A refused text: what it must be instead (`must be …`), and whether the text may be quoted back. */
export class Refusal {
  constructor(
    readonly must: string,
    readonly echo: boolean,
  ) {}
}

export interface Rule<T> {
  /** The values accepted, in Markdown words: the README's "Accepts" column and .env.example. */
  readonly accepts: string;
  /** White space around the text is dropped first, so a text of spaces alone reads as unset. */
  readonly trim?: boolean;
  parse(text: string): T | Refusal;
}

/** Number(text) as an integer in [min, max]: `1e3` and ` 5 ` pass, as they always did. */
export function integer(min: number, max: number): Rule<number> {
  return {
    accepts: `integer ${min}–${max}`,
    parse(text) {
      const n = Number(text);
      if (Number.isInteger(n) && n >= min && n <= max) return n;
      return new Refusal(`must be an integer between ${min} and ${max}`, true);
    },
  };
}

export function boolean(): Rule<boolean> {
  return {
    accepts: "`true` or `false` (`1`, `0`)",
    parse(text) {
      if (text === "true" || text === "1") return true;
      if (text === "false" || text === "0") return false;
      return new Refusal("must be true or false", true);
    },
  };
}

/** One of a closed list; `said` words the list in the refusal when a plain sentence reads better. */
export function oneOf<const T extends string>(allowed: readonly T[], said?: string): Rule<T> {
  return {
    accepts: allowed.map((value) => `\`${value}\``).join(", "),
    parse(text) {
      if ((allowed as readonly string[]).includes(text)) return text as T;
      return new Refusal(said ? `must be ${said}` : `must be one of ${allowed.join(", ")}`, true);
    },
  };
}

/**
 * A URL of one of the protocols, returned as given (or as `then` makes it). The text is never
 * quoted back: database, Redis and SMTP URLs carry passwords.
 */
export function url(
  protocols: readonly string[],
  then: (text: string) => string = (text) => text,
): Rule<string> {
  return {
    accepts: `${protocols.map((p) => `\`${p}\``).join(" or ")} URL`,
    parse(text) {
      try {
        if (protocols.includes(new URL(text).protocol)) return then(text);
      } catch {}
      return new Refusal(`must be a ${protocols.join(" or ")} URL`, false);
    },
  };
}

/** Milliseconds between attempts, comma-separated; the list's length is the number of retries. */
export function delayList(): Rule<readonly number[]> {
  return {
    accepts: "comma list of integers ≥ 0",
    parse(text) {
      const list = text.split(",").map((s) => Number(s.trim()));
      if (list.every((n) => Number.isInteger(n) && n >= 0)) return list;
      return new Refusal("must be a comma-separated list of non-negative integers", false);
    },
  };
}

/** Any text of at least `min` characters (a token: never quoted back). */
export function text(accepts: string, options: { min?: number; trim?: boolean } = {}): Rule<string> {
  const min = options.min ?? 0;
  return {
    accepts,
    trim: options.trim,
    parse(text) {
      return text.length >= min ? text : new Refusal(`must be at least ${min} characters`, false);
    },
  };
}

/** A directory, relative to the working directory unless absolute; the value is absolute. */
export function directory(): Rule<string> {
  return { accepts: "directory path", parse: (text) => path.resolve(text) };
}

/** TRUST_PROXY: false, true, a hop count, or a comma list of proxy addresses or CIDRs. */
export function trustProxy(): Rule<boolean | number | string[]> {
  return {
    accepts: "`false`, `true`, a hop count, or a comma list of addresses/CIDRs",
    parse(text) {
      if (text === "false") return false;
      if (text === "true") return true;
      if (/^\d{1,2}$/.test(text)) return Number(text);
      const list = text.split(",").map((s) => s.trim());
      if (list.every((s) => /^[0-9A-Fa-f.:]+(\/\d{1,3})?$/.test(s))) return list;
      return new Refusal("must be true, false, a hop count or a comma list of addresses/CIDRs", true);
    },
  };
}

/**
 * STORAGE_URL (CONTRACT 12): `file:` or `s3://<bucket>?endpoint=<url>&region=<r>&forcePathStyle=true`.
 * Its text holds no secret (the S3 keys have variables of their own), so it may be quoted back.
 */
export function storageUrl(): Rule<string> {
  return {
    accepts: "`file:` or `s3://<bucket>?endpoint=<url>&region=<r>&forcePathStyle=true`",
    parse(text) {
      if (text === "file:") return text;
      try {
        const parsed = new URL(text);
        if (parsed.protocol === "s3:" && parsed.hostname !== "") {
          const endpoint = parsed.searchParams.get("endpoint");
          if (endpoint === null || /^https?:$/.test(new URL(endpoint).protocol)) return text;
        }
      } catch {}
      return new Refusal(
        "must be file: or s3://<bucket>?endpoint=<url>&region=<region>&forcePathStyle=true",
        true,
      );
    },
  };
}

/** A name shown in page titles and mail headers: short, and nothing that could close a tag or a quote. */
export function displayName(max: number): Rule<string> {
  return {
    accepts: `text, at most ${max} characters, no \`<\`, \`>\`, \`"\``,
    trim: true,
    parse(text) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      if (text.length <= max && !/[<>"\u0000-\u001f\u007f]/.test(text)) return text;
      return new Refusal(
        `must be at most ${max} characters, without <, >, quotes or control characters`,
        false,
      );
    },
  };
}

/** A mail header's address: `address` or `Name <address>`, on one line. */
export function mailbox(): Rule<string> {
  return {
    accepts: '`address` or `"Name <address>"`',
    trim: true,
    parse(text) {
      if (/^[^<>@\s]+@[^<>@\s]+$|^[^<>]*<[^<>@\s]+@[^<>@\s]+>$/.test(text) && !/[\r\n]/.test(text)) {
        return text;
      }
      return new Refusal('must be an address or "Name <address>"', true);
    },
  };
}
