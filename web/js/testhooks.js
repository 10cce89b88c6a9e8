// Test hooks: objects the browser tests read on `window` (`__i18nMissing`, the keys asked for
// but missing; `__cues`, every sound cue; `__device`, the single-device controller). They are
// put there only when config.json says `"testHooks": true`, which the offline stack's says
// (local/gateway.py) and a deployed site's never does (functions/sitedeploy/handler.py drops
// it): a shipped page carries no test handles.
const hooks = new Map();
let on = false;

/** Offer `value` as `window.__<name>` (shown once test hooks are switched on). */
export function testHook(name, value) {
  hooks.set(name, value);
  if (on) window[`__${name}`] = value;
}

/** config.json asked for test hooks: show every one offered, and those offered later. */
export function enableTestHooks() {
  on = true;
  for (const [name, value] of hooks) window[`__${name}`] = value;
}
