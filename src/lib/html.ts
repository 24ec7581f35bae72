// Auto-escaping HTML: every value interpolated into an `html` template is escaped unless it is
// itself the output of `html` (already safe). Pages (src/web/html.ts) and mail bodies
// (src/mail/) are built only from these templates, so no vendor-, customer- or client-supplied
// text (names, messages, application names, URIs, e-mails) can inject markup.
import escapeHtml from "escape-html";

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Interpolation =
  | SafeHtml
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return new SafeHtml(out);
}
