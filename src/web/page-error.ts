// An error that is shown as its own HTML page by the page scope's error handler (browser-scope.ts),
// with its status and title. Lets a higher layer (OAuth's untrusted-redirect refusal) choose its
// page without the page kit knowing about it.
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly description: string,
  ) {
    super(description);
    this.name = "PageError";
  }
}
