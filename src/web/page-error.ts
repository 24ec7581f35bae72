// An error that is shown as its own HTML page by the page scope's error handler (browser-scope.ts),
// with its status and title. Lets a higher layer (OAuth's untrusted-redirect refusal) choose its
// page without the page kit knowing about it. With `translated`, title and description are
// catalogue keys (src/i18n), written in the reader's language.
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly description: string,
    readonly translated = false,
  ) {
    super(description);
    this.name = "PageError";
  }
}
