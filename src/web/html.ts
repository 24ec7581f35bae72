// Auto-escaping HTML: every value interpolated into an `html` template is escaped unless it is
// itself the output of `html` (already safe). Pages are built only from these templates, so no
// vendor- or client-supplied text (application names, URIs, e-mails) can inject markup.
import escapeHtml from "escape-html";

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

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

const styles = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{padding:.5rem 1.2rem;font:inherit;margin:1rem .5rem 0 0;cursor:pointer}.error{color:#a00}
ul.scopes li{margin:.3rem 0}.muted{color:#666;font-size:.9rem}`;

/** The page frame every server-rendered page shares: no script, no third-party resource. */
export function layout(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · vendor-api</title><style>${new SafeHtml(styles)}</style></head>
<body><main>${body}</main></body></html>`.value;
}

export function errorPage(title: string, message: string): string {
  return layout(title, html`<h1>${title}</h1><p class="error">${message}</p>`);
}
