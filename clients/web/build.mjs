// Bundles entry.js into server/play/static/connect-web.js (an IIFE defining the global
// GalleristConnect), minified, for the /play page. Run `npm ci && npm run build` here after
// changing the pinned versions; the bundle is kept in git with the packages' licences.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { readFileSync } from "node:fs";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] ?? path.join(here, "..", "..", "server", "play", "static", "connect-web.js");
const version = (name) =>
  JSON.parse(readFileSync(path.join(here, "node_modules", name, "package.json"), "utf8")).version;
const banner = `/*! GalleristConnect: @bufbuild/protobuf ${version("@bufbuild/protobuf")} ` +
  "(Apache-2.0 AND BSD-3-Clause, Copyright 2021-2026 Buf Technologies, Inc.), " +
  `@connectrpc/connect ${version("@connectrpc/connect")} and @connectrpc/connect-web ` +
  `${version("@connectrpc/connect-web")} (Apache-2.0, Copyright 2021-2026 The Connect Authors), ` +
  "bundled by clients/web/build.mjs; the licences: /play/licenses (THIRD_PARTY_LICENSES.txt). */";
await build({
  banner: { js: banner },
  entryPoints: [path.join(here, "entry.js")],
  bundle: true, minify: true, format: "iife", globalName: "GalleristConnect",
  target: "es2020", platform: "browser", legalComments: "eof", outfile: out,
  logLevel: "warning",
});
