// Bundles the page's code (src/main.js and the client libraries it imports) into
// dist/wallet.js with esbuild and copies the static files of public/ beside it. dist/ is
// what the platform backend serves; it loads nothing from elsewhere at run time.
import { build } from "esbuild";
import { cp, rm } from "node:fs/promises";

const here = new URL(".", import.meta.url);
const dist = new URL("dist/", here);
await rm(dist, { recursive: true, force: true });
await cp(new URL("public/", here), dist, { recursive: true });
await build({
  entryPoints: [new URL("src/main.js", here).pathname],
  outfile: new URL("wallet.js", dist).pathname,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2022"],
  sourcemap: true,
  minify: true,
  legalComments: "linked",
  logLevel: "warning",
});
