// Build the web client (web/) into build/web/: what the offline stack serves and the site
// deployer publishes under v/<release>/ (docs/architecture.md, "Client build").
//
// esbuild (package.json, pinned) bundles web/js/ into minified, code-split ES modules, every one
// a file of build/web/js/ with its source map beside it:
//   app.js      the page's entry (index.html): the player's client or the room's screen
//   player.js   the player's client; its static chunks are named in index.html as
//               modulepreload links, so a phone learns the whole boot from the page itself
//   display.js  the room's screen (?display=KEY), its own entry: a TV never boots player.js
//   device.js   the single-device mode, fetched on its button (or to resume its game)
//   en/ko/ru-*.js  one dictionary each, fetched for the language the visitor reads
//   qrcode-*.js the QR drawing, fetched the first time a QR code is shown
//   testing-*.js every module by its source path, fetched only with test hooks on
//                (web/js/testhooks.js; the offline stack's config.json)
//   chunk-*.js  code two of those share
// and copies the rest (style.css, display.css, icons/, manifest.webmanifest, the vendored
// libraries' licences) as they are;
// index.html gets the preload links, sw.js its precache list. Deterministic: the same sources
// give the same bytes (scripts/check_build.py compares two builds).
//
// Usage: node scripts/build_web.mjs [outdir]   (the Makefile's `web` rule runs it)
import { build } from "esbuild";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const WEB = join(REPO, "web");
const OUT = resolve(process.argv[2] || join(REPO, "build", "web"));
const JS = join(OUT, "js");
const COPIED = ["style.css", "display.css", "manifest.webmanifest", "icons"];
// entry modules whose evaluation takes the page over: testing.js hands them out as loaders
const RUNS = new Set(["app.js", "player.js", "display/main.js", "device/main.js"]);
const ENTRY_TAG = '<script type="module" src="js/app.js"></script>';
const PRECACHE_TAG = /const PRECACHE = \[[^\]]*\];/;

function modulesOf(dir, base = dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...modulesOf(path, base));
    else if (name.endsWith(".js")) out.push(relative(base, path).split("\\").join("/"));
  }
  return out;
}

// `./testing.js` (imported by web/js/testhooks.js): every module of web/js/ by its path
// ("./js/store.js"), made here so no list is kept by hand.
const testing = {
  name: "testing",
  setup(b) {
    b.onResolve({ filter: /^\.\/testing\.js$/ }, () => ({ path: "testing.js", namespace: "testing" }));
    b.onLoad({ filter: /.*/, namespace: "testing" }, () => {
      const lines = [];
      const entries = [];
      modulesOf(join(WEB, "js")).forEach((rel, i) => {
        if (rel === "testhooks.js" || rel.startsWith("i18n/")) return; // the hooks themselves; languages: loadLang
        if (RUNS.has(rel)) entries.push(`  ${JSON.stringify(`./js/${rel}`)}: () => import(${JSON.stringify(`./${rel}`)}),`);
        else {
          lines.push(`import * as m${i} from ${JSON.stringify(`./${rel}`)};`);
          entries.push(`  ${JSON.stringify(`./js/${rel}`)}: m${i},`);
        }
      });
      const contents = `${lines.join("\n")}\nexport const modules = {\n${entries.join("\n")}\n};\n`;
      return { contents, resolveDir: join(WEB, "js"), loader: "js" };
    });
  },
};

/** The output files `file` imports statically, transitively (itself first). */
function staticClosure(meta, file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const imp of meta.outputs[file].imports) if (imp.kind === "import-statement") staticClosure(meta, imp.path, seen);
  return seen;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(JS, { recursive: true });
const result = await build({
  absWorkingDir: REPO,
  entryPoints: {
    app: "web/js/app.js",
    player: "web/js/player.js",
    display: "web/js/display/main.js",
    device: "web/js/device/main.js",
  },
  outdir: relative(REPO, JS),
  entryNames: "[name]",
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  target: "es2022",
  minify: true,
  sourcemap: "linked",
  charset: "utf8",
  metafile: true,
  logLevel: "warning",
  plugins: [testing],
});
if (result.errors.length) process.exit(1);

const meta = result.metafile;
const rel = (out) => relative(OUT, join(REPO, out)).split("\\").join("/");
const player = relative(REPO, join(JS, "player.js")).split("\\").join("/");
const boot = [...staticClosure(meta, player)].map(rel);
const langs = Object.entries(meta.outputs)
  .filter(([, o]) => o.entryPoint && /^web\/js\/i18n\/\w+\.js$/.test(o.entryPoint))
  .map(([out]) => rel(out))
  .sort();

for (const name of COPIED) cpSync(join(WEB, name), join(OUT, name), { recursive: true });
// the vendored libraries are bundled; their licences ship beside the client, as they are
for (const lib of readdirSync(join(WEB, "vendor")).sort()) {
  for (const file of readdirSync(join(WEB, "vendor", lib)).sort()) {
    if (/^LICEN[CS]E/i.test(file)) cpSync(join(WEB, "vendor", lib, file), join(OUT, "vendor", lib, file));
  }
}

const index = readFileSync(join(WEB, "index.html"), "utf8");
if (!index.includes(ENTRY_TAG)) throw new Error(`web/index.html has no ${ENTRY_TAG}`);
const preload = boot.map((f) => `<link rel="modulepreload" href="${f}">`).join("\n  ");
// The language the boot will load (web/js/i18n.js pickDefault: the kept choice, else the
// browser's first language we have, else English), preloaded too: no script waits for
// another to learn it. Each language's file is a `data-<lang>-href` attribute, which the site
// deployer points at the release as it does every href.
const byLang = langs.map((f) => `data-${f.slice(3, 5)}-href="${f}"`).join(" ");
const pickLang = `<script ${byLang}>(function (s) {
    var kept = null;
    try { kept = localStorage.getItem("mafia.lang"); } catch (e) {}
    var tags = [kept].concat(navigator.languages || [navigator.language]).concat("en");
    for (var i = 0; i < tags.length; i++) {
      var href = tags[i] && s.getAttribute("data-" + String(tags[i]).toLowerCase().slice(0, 2) + "-href");
      if (href) {
        var link = document.createElement("link");
        link.rel = "modulepreload";
        link.href = href;
        document.head.appendChild(link);
        return;
      }
    }
  })(document.currentScript);</script>`;
writeFileSync(join(OUT, "index.html"), index.replace(ENTRY_TAG, `${preload}\n  ${pickLang}\n  ${ENTRY_TAG}`));

// the service worker keeps the shell: the page, its boot and every language (offline, any)
const shell = ["./", "index.html", "style.css", "manifest.webmanifest", "icons/icon.svg", "icons/icon-192.png", "js/app.js", ...boot, ...langs];
const sw = readFileSync(join(WEB, "sw.js"), "utf8");
if (!PRECACHE_TAG.test(sw)) throw new Error("web/sw.js has no `const PRECACHE = [...];`");
writeFileSync(join(OUT, "sw.js"), sw.replace(PRECACHE_TAG, `const PRECACHE = ${JSON.stringify(shell)};`));
