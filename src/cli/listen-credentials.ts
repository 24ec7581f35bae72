// Where `vendor-api listen` takes its credential from, and where it may send it. The rules:
//  1. The key comes from `--api-key`, else `--api-key-file <path>`, else `--api-key-stdin`, else
//     VENDOR_API_KEY (CONTRACT 12); the file, standard input and the environment keep it out of
//     argv, where `ps` shows it to every user of the machine. More than one explicit source is a
//     usage error (which one wins would be a guess).
//  2. The key goes over https, or over plain http only to this machine (a loopback address or
//     `localhost`): anywhere else, anyone on the path would read it.
//  3. A redirect is followed only to the same origin (scheme, host and port): the key is never
//     sent to another origin (listen.ts; fetch would re-send a custom X-Api-Key header there).
import fs from "node:fs";

export interface KeySources {
  flag?: string | undefined;
  file?: string | undefined;
  stdin?: boolean | undefined;
  env?: string | undefined;
}

/** A command line that cannot work (exit status 2). */
export class ListenUsageError extends Error {}

/** The key, by rule 1; `readStdin` reads all of standard input. */
export async function resolveListenKey(
  sources: KeySources,
  readStdin: () => Promise<string>,
): Promise<string> {
  const explicit = [sources.flag !== undefined, sources.file !== undefined, sources.stdin === true];
  if (explicit.filter(Boolean).length > 1) {
    throw new ListenUsageError("give the API key one way: --api-key, --api-key-file or --api-key-stdin");
  }
  let key: string | undefined;
  if (sources.flag !== undefined) key = sources.flag;
  else if (sources.file !== undefined) {
    try {
      key = fs.readFileSync(sources.file, "utf8");
    } catch (err) {
      throw new ListenUsageError(
        `--api-key-file: cannot read ${sources.file} (${(err as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
  } else if (sources.stdin) key = await readStdin();
  else key = sources.env;
  // A trailing newline is the file's or the shell's, not the key's.
  key = key?.trim();
  if (!key) {
    throw new ListenUsageError(
      "no API key: set VENDOR_API_KEY, or pass --api-key-file <path> or --api-key-stdin",
    );
  }
  return key;
}

// Rules 2 and 3 are the forwarding's own (one home, shared with the client package's bin).
export { apiUrlProblem, isLoopbackHost } from "../../clients/typescript/src/forwarding.js";
