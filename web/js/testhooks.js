// Test hooks: objects the browser tests read on `window` (`__i18nMissing`, the keys asked for
// but missing; `__cues`, every sound cue; `__device`, the single-device controller), and
// `__import(path)`: the page's own instance of a client module by its source path
// (`__import('./js/store.js')`), the same one the page runs (a bundle has no module per file:
// scripts/build_web.mjs makes `./testing.js`, every module of web/js/ by its path). They are
// put there only when config.json says `"testHooks": true`, which the offline stack's says
// (local/gateway.py) and a deployed site's never does (functions/sitedeploy/handler.py drops
// it): a shipped page carries no test handles, and never fetches the testing chunk.
const hooks = new Map();
let on = false;
let modules = null; // the testing chunk's load, once hooks are on

/** Offer `value` as `window.__<name>` (shown once test hooks are switched on). */
export function testHook(name, value) {
  hooks.set(name, value);
  if (on) window[`__${name}`] = value;
}

/** config.json asked for test hooks: show every one offered, and those offered later. */
export function enableTestHooks() {
  on = true;
  modules ||= import("./testing.js").then((m) => m.modules);
  window.__import = async (path) => {
    const mod = (await modules)[path];
    if (!mod) throw new Error(`no client module ${path}`);
    return typeof mod === "function" ? mod() : mod; // an entry: loaded (and run) when asked
  };
  for (const [name, value] of hooks) window[`__${name}`] = value;
}

/** The test hooks are all there (every module loaded when they are on): a boot waits for it. */
export const testHooksReady = () => modules || Promise.resolve();
