// The import layering of src/ (README "Layout"), checked by `npm run check:layers`. Each layer may
// import its own and lower layers only; the two page surfaces (dashboard, OAuth) do not import each
// other; only repositories and db/ import drizzle-orm, the tables or the prepared statements
// (README "One rule for SQL"); and no import circle anywhere. Every layer is whole folders (and
// top-level files), with no exceptions carved out of a folder. Lowest first:
//   1 foundation   lib/, auth/, db/, errors.ts, config.ts with config/ (the declared variables)
//   2 platform     outbox/ (enqueue: the write side services call), outbox-worker/ (the one loop that
//                  empties an outbox, running senders), webhook-delivery/ (the webhook sender),
//                  mail/ (mail outbox, mail sender), maintenance/, storage/ (blob stores),
//                  metrics/ (the registry the dispatcher reports to), context.ts
//   3 http kit     http/ (plugins and shared schemas), observability/ (GET /metrics, the worker's
//                  probe server)
//   4 modules      modules/<name>/ (routes, schemas, services, repositories, presenters), whose
//                  folders import one way (no folder circle); modules/use-cases/ above them all holds
//                  the use cases spanning modules (booking, sign-up, erasure, sandbox reset, inquiry
//                  handling) and the routes that call them
//   5 API document openapi/ (gathers the modules' schemas, examples and the webhooks section)
//   6 page kit     web/ (browser scope, html, flash, forms, sessions' cookie, return-to)
//   7 surfaces     dashboard/, oauth/, docs/
//   8 composition  app.ts, main.ts, cli.ts, cli/
const foundation = "^src/(lib|auth|db|config)/|^src/(errors|config)[.]ts$";
const platform =
  "^src/(outbox|outbox-worker|webhook-delivery|mail|maintenance|metrics|storage)/|^src/context[.]ts$";
const httpKit = "^src/(http|observability)/";
const modules = "^src/modules/";
const apiDocument = "^src/openapi/";
const web = "^src/web/";
const surfaces = "^src/(dashboard|oauth|docs)/";
const composition = "^src/(app|main|cli)[.]ts$|^src/cli/";

const above = (name, from, higher) => ({
  name,
  severity: "error",
  comment: "An import runs up the layers (see README, Layout).",
  from: { path: from },
  to: { path: higher.join("|") },
});

module.exports = {
  forbidden: [
    above("foundation-up", foundation, [platform, httpKit, modules, apiDocument, web, surfaces, composition]),
    above("platform-up", platform, [httpKit, modules, apiDocument, web, surfaces, composition]),
    above("http-kit-up", httpKit, [modules, apiDocument, web, surfaces, composition]),
    above("modules-up", modules, [apiDocument, web, surfaces, composition]),
    above("api-document-up", apiDocument, [web, surfaces, composition]),
    above("web-up", web, [surfaces, composition]),
    above("surfaces-up", surfaces, [composition]),
    {
      name: "outbox-write-side-alone",
      severity: "error",
      comment:
        "The outbox's write side (what services call) never reaches into the dispatcher that empties it.",
      from: { path: "^src/outbox/" },
      to: { path: "^src/webhook-delivery/" },
    },
    {
      name: "loop-knows-no-sender",
      severity: "error",
      comment:
        "The outbox loop runs any sender it is given: a new kind of message is a new sender, never a change to the loop.",
      from: { path: "^src/outbox-worker/" },
      to: { path: "^src/(webhook-delivery|mail)/" },
    },
    {
      name: "document-knows-no-module",
      severity: "error",
      comment:
        "The OpenAPI document's walk reads what routes and named schemas declare: a new resource edits nothing in it.",
      from: { path: "^src/openapi/document[.]ts$" },
      to: { path: modules },
    },
    {
      name: "dashboard-not-oauth",
      severity: "error",
      comment: "The dashboard and the OAuth pages share the page kit (web/), not each other.",
      from: { path: "^src/dashboard/" },
      to: { path: "^src/oauth/" },
    },
    {
      name: "oauth-not-dashboard",
      severity: "error",
      comment: "The dashboard and the OAuth pages share the page kit (web/), not each other.",
      from: { path: "^src/oauth/" },
      to: { path: "^src/dashboard/" },
    },
    {
      name: "pages-call-services",
      severity: "error",
      comment:
        "The dashboard, the page kit and the CLI call services, never a repository (STYLE: dashboard).",
      from: { path: "^src/(dashboard|web|cli)/" },
      to: { path: "[.]repository[.]ts$" },
    },
    {
      name: "sql-in-repositories",
      severity: "error",
      comment:
        "One rule for SQL (README, Layout): only repositories (*.repository.ts) and src/db/ build or run SQL; " +
        "elsewhere drizzle-orm, the tables and the prepared statements are imported as types at most. " +
        "Move the query into the module's repository (test/sql/rule.test.ts also checks the text).",
      from: { path: "^src/", pathNot: "[.]repository[.]ts$|^src/db/" },
      to: {
        path: "(^|/)node_modules/drizzle-orm/|^src/db/(schema/|prepared[.]ts$)",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "no-circular",
      severity: "error",
      comment: "An import circle (type-only imports included).",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-module-folder-circle",
      severity: "error",
      comment:
        "Modules import one way: no circle of folders in src/modules (customers -> orders -> customers), " +
        "even when no file circle closes it. Move the code to its home, or a use case spanning modules " +
        "to src/modules/use-cases/.",
      scope: "folder",
      from: { path: "^src/modules/[^/]+$" },
      to: { path: "^src/modules/[^/]+$", circular: true },
    },
    {
      name: "use-cases-on-top",
      severity: "error",
      comment:
        "src/modules/use-cases/ holds the use cases spanning modules (and the routes calling them); " +
        "no module imports it, so it sits above them all.",
      from: { path: "^src/modules/", pathNot: "^src/modules/use-cases/" },
      to: { path: "^src/modules/use-cases/" },
    },
    {
      name: "src-not-tests",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    // Packages are leaves of the graph, not followed, but kept (not excluded): sql-in-repositories
    // needs to see an import of drizzle-orm.
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
