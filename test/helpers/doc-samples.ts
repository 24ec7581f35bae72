// Running the code samples of the README and the guides as a reader would:
// shell blocks with bash, one terminal per document (variables a step exports reach the next
// steps), and TypeScript blocks as modules. Under a command, `# …` lines are the answer the
// document shows, and at the end of a TypeScript block `// …` lines are what it prints: the real
// output must match, `…` standing for anything and each sample id for one real id (the same
// sample id the same real id everywhere).
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./processes.ts";

export interface CodeBlock {
  /** The document, relative to the repository. */
  file: string;
  /** The fence's language (`sh`, `ts`, `json`, `text`). */
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced block of a markdown document, in order. */
export function codeBlocks(file: string): CodeBlock[] {
  const text = fs.readFileSync(path.join(repoRoot, file), "utf8");
  const blocks: CodeBlock[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i] ?? "");
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !(lines[i] ?? "").startsWith("```")) body.push(lines[i] ?? "");
    blocks.push({ file, lang: open[1] ?? "", code: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

export interface Step {
  command: string;
  expected?: string;
}

/**
 * A shell block as steps: the lines up to a sample answer (`# …`) or a blank line are one step
 * (a loop or a `\` continuation stays whole), and the `# …` lines under it are its answer.
 */
export function shellSteps(code: string): Step[] {
  const steps: Step[] = [];
  let lines: string[] = [];
  const flush = (expected?: string) => {
    if (lines.length > 0)
      steps.push({ command: lines.join("\n"), ...(expected === undefined ? {} : { expected }) });
    else if (expected !== undefined) throw new Error(`a sample answer with no command: ${expected}`);
    lines = [];
  };
  const all = code.split("\n");
  for (let i = 0; i < all.length; i++) {
    const line = all[i] ?? "";
    if (line.trim() === "") flush();
    else if (line.startsWith("# ")) {
      const sample = [line.slice(2)];
      while ((all[i + 1] ?? "").startsWith("# ")) sample.push((all[++i] ?? "").slice(2));
      flush(sample.join("\n"));
    } else lines.push(line);
  }
  flush();
  return steps;
}

const ID = /\b[a-z0-9]{24}\b/g;
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const escapeWithEllipsis = (s: string) => s.split("…").map(escapeRegex).join(".*?");

/** Matches `actual` against a sample, binding sample ids to real ids in `ids`. */
export function matchSample(sample: string, actual: string, ids: Map<string, string>): boolean {
  const groups: string[] = [];
  let pattern = "";
  let last = 0;
  for (const m of sample.matchAll(ID)) {
    pattern += escapeWithEllipsis(sample.slice(last, m.index));
    const known = ids.get(m[0]);
    if (known) pattern += escapeRegex(known);
    else if (groups.includes(m[0])) pattern += `\\k<g${groups.indexOf(m[0])}>`;
    else {
      groups.push(m[0]);
      pattern += `(?<g${groups.length - 1}>[a-z0-9]{24,32})`;
    }
    last = (m.index ?? 0) + m[0].length;
  }
  pattern += escapeWithEllipsis(sample.slice(last));
  const match = new RegExp(`^${pattern}$`, "s").exec(actual);
  if (!match) return false;
  groups.forEach((g, i) => {
    ids.set(g, match.groups?.[`g${i}`] as string);
  });
  return true;
}

/** A command that never ends by itself (a stream, `listen`): stopped once its answer showed. */
const LONG_RUNNING = /curl -N|cli -- listen/;

/**
 * One terminal: bash run per step in `cwd`, with the variables earlier steps exported (set -a);
 * `url` maps the address the documents use to the real server's.
 */
export class ShellSession {
  readonly #state: string;
  constructor(
    dir: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly url: { documented: string; real: string },
  ) {
    this.#state = path.join(dir, `shell-state-${Math.random().toString(36).slice(2)}.sh`);
    fs.writeFileSync(this.#state, "");
  }

  /** Sets variables as if exported by a step (what the reader has from elsewhere). */
  export(vars: Record<string, string>): void {
    const lines = Object.entries(vars).map(([k, v]) => `export ${k}=${shellQuote(v)}`);
    fs.appendFileSync(this.#state, `${lines.join("\n")}\n`);
  }

  /** An exported variable's value. */
  async get(name: string): Promise<string> {
    return (await this.#bash(`printf %s "$${name}"`)).trim();
  }

  /** Runs a step; returns its stdout, or throws with its stderr. */
  async run(step: Step, ids: Map<string, string>): Promise<string> {
    const command = step.command.replaceAll(this.url.documented, this.url.real);
    const expected = step.expected?.replaceAll(this.url.documented, this.url.real);
    if (LONG_RUNNING.test(command)) return this.#runUntil(command, expected, ids);
    const stdout = await this.#bash(`${command}\nexport -p > ${JSON.stringify(this.#state)}`);
    if (expected !== undefined && !matchSample(expected, stdout.trim(), ids)) {
      throw new Error(`${command}\nanswered:\n${stdout}\nthe document shows:\n${expected}`);
    }
    return stdout;
  }

  async #bash(body: string): Promise<string> {
    const script = `set -aeo pipefail\nsource ${JSON.stringify(this.#state)}\n${body}\n`;
    const { stdout } = await promisify(execFile)("bash", ["-c", script], {
      cwd: repoRoot,
      env: this.env,
    }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`a documented command failed:\n${body}\n${err.stderr ?? err.message}`);
    });
    return stdout;
  }

  /** Starts a command that runs until stopped; stops it (its whole group) once its answer shows. */
  #runUntil(command: string, expected: string | undefined, ids: Map<string, string>): Promise<string> {
    if (expected === undefined) throw new Error(`a long-running command needs a sample answer: ${command}`);
    const script = `set -aeo pipefail\nsource ${JSON.stringify(this.#state)}\n${command}\n`;
    const child = spawn("bash", ["-c", script], { cwd: repoRoot, env: this.env, detached: true });
    let stdout = "";
    let stderr = "";
    return new Promise((resolve, reject) => {
      const stop = () => {
        clearTimeout(timer);
        try {
          if (child.pid) process.kill(-child.pid, "SIGTERM");
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        stop();
        reject(
          new Error(`${command}\nanswered (so far):\n${stdout}\n${stderr}\nthe document shows:\n${expected}`),
        );
      }, 30_000);
      child.stdout.on("data", (d) => {
        stdout += d;
        if (matchSample(expected, stdout.trim(), ids)) {
          stop();
          resolve(stdout);
        }
      });
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      child.on("exit", (code) => {
        if (code !== null && code !== 0) {
          clearTimeout(timer);
          reject(new Error(`${command} exited ${code}:\n${stderr}`));
        }
      });
    });
  }
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Names a TypeScript sample may take from the reader's context instead of declaring them. */
const CONTEXT_NAMES = ["client", "secret", "rawBody", "headers", "request", "reply", "process"] as const;

export interface TsSampleRun {
  /** What it printed with console.log, one line each. */
  output: string[];
  /** The names it declares at its top level, with their values. */
  values: Record<string, any>;
  /** The `// …` lines it ends with: what it should print. */
  expected: string | undefined;
}

/**
 * Runs a TypeScript block as a module: its imports (`./` meaning the repository), then its body in
 * an async function that takes `context` (names the body uses without declaring them, e.g. a
 * request's `headers`, or `process` with the reader's environment) and returns what it declares.
 */
export async function runTsSample(
  block: CodeBlock,
  context: Partial<Record<(typeof CONTEXT_NAMES)[number], unknown>>,
): Promise<TsSampleRun> {
  const lines = block.code.split("\n");
  let end = lines.length;
  while (end > 0 && /^\/\/ /.test(lines[end - 1] ?? "")) end--;
  const expectedLines = lines.slice(end).map((l) => l.slice(3));
  const code = lines.slice(0, end);
  const imports = code
    .filter((l) => l.startsWith("import "))
    .map((l) =>
      l
        .replace(/from "\.\//, `from "${repoRoot}/`)
        // The client package as its README imports it: this repository's copy.
        .replace(/from "@vendor-api\/client"/, `from "${repoRoot}/clients/typescript/src/index.ts"`),
    );
  const body = code
    .filter((l) => !l.startsWith("import "))
    .map((l) => l.replace(/^export (function|const) /, "$1 "));
  const declared = [...body.join("\n").matchAll(/^(?:const|let|function|async function) (\w+)/gm)].map(
    (m) => m[1] as string,
  );
  const taken = CONTEXT_NAMES.filter(
    (n) => !declared.includes(n) && new RegExp(`\\b${n}\\b`).test(body.join("\n")),
  );
  const source = `${imports.join("\n")}
export default async function sample(__context: Record<string, any>) {
  const console = __context.console;
  ${taken.map((n) => `const ${n} = __context.${n};`).join("\n  ")}
  ${body.join("\n  ")}
  return { ${declared.join(", ")} };
}
`;
  const dir = path.join(repoRoot, ".test-build", "doc-samples");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${path.basename(block.file, ".md")}-${block.line}.ts`);
  fs.writeFileSync(file, source);
  const output: string[] = [];
  const mod = (await import(file)) as {
    default: (c: Record<string, unknown>) => Promise<Record<string, any>>;
  };
  const values = await mod.default({
    ...context,
    console: { log: (...a: unknown[]) => output.push(a.join(" ")) },
  });
  return { output, values, expected: expectedLines.length > 0 ? expectedLines.join("\n") : undefined };
}
