// Tiny DOM helpers: build elements from data, no framework, no innerHTML with data.

/**
 * h("button", {class: "x", onclick: fn, "aria-label": "..."}, child, "text", [more])
 * Attribute values of null/undefined/false are skipped; `true` sets an empty attribute.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") {
        listen(el, key.slice(2), value);
      } else if (key === "class") {
        el.className = value;
      } else if (key === "text") {
        el.textContent = value;
      } else if (key === "value" || key === "checked" || key === "selected") {
        el[key] = value;
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
  }
  append(el, children);
  return el;
}

// An element's listeners from h() sit in one table behind one dispatcher per event type, so a
// node kept by patchChildren takes the listeners (and the view they close over) of the node
// drawn to replace it.
function listen(el, type, fn) {
  const on = el._on || (el._on = {});
  if (!(type in on)) el.addEventListener(type, dispatch);
  on[type] = fn;
}

function dispatch(event) {
  const fn = this._on && this._on[event.type];
  if (fn) return fn.call(this, event);
}

function adoptListeners(cur, want) {
  const mine = cur._on || {};
  const theirs = want._on || {};
  for (const type of Object.keys(mine)) if (!(type in theirs)) mine[type] = null;
  for (const [type, fn] of Object.entries(theirs)) listen(cur, type, fn);
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace the children of `el`, keeping keyboard focus on the element with the same data-key. */
export function replaceChildren(el, ...children) {
  const active = document.activeElement;
  const key = active && el.contains(active) ? active.dataset.key : null;
  el.replaceChildren();
  append(el, children);
  if (key) {
    const again = el.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}

/**
 * Make `el`'s children look like `children` while keeping the nodes already there: a child of
 * the same kind (tag, id, data-key; text for text) is updated in place (attributes, form
 * values, listeners, its own children, the same way), only what differs is written, and a
 * node handed in again (kept by its module across redraws) stays itself. The focused control,
 * an open menu and the scroll stay put when the same panel is drawn again; a focused control
 * that did go comes back by its data-key, as with replaceChildren. A text field being typed in
 * keeps what was typed (and its caret): the value drawn for it waits until it loses focus.
 */
export function patchChildren(el, ...children) {
  const active = document.activeElement;
  const key = active && el.contains(active) ? active.dataset.key : null;
  patchList(el, flat(children, []));
  if (key && !el.contains(document.activeElement)) {
    const again = el.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}

function flat(children, out) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) flat(child, out);
    else out.push(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return out;
}

function sameKind(a, b) {
  if (a.nodeType !== b.nodeType) return false;
  if (a.nodeType === Node.TEXT_NODE) return true;
  if (a.nodeType !== Node.ELEMENT_NODE || a.tagName !== b.tagName) return false;
  if (a.id !== b.id || a.getAttribute("data-key") !== b.getAttribute("data-key")) return false;
  return a.tagName !== "INPUT" || a.type === b.type;
}

function patchList(parent, next) {
  const handedIn = new Set(next);
  let i = 0;
  for (const want of next) {
    const cur = parent.childNodes[i];
    if (cur !== want) {
      // a node that is itself in the new list is never reshaped into another one
      if (cur && !handedIn.has(cur) && sameKind(cur, want)) patchNode(cur, want);
      else parent.insertBefore(want, cur || null);
    }
    i++;
  }
  while (parent.childNodes.length > i) parent.lastChild.remove();
}

function patchNode(cur, want) {
  if (cur.nodeType === Node.TEXT_NODE) {
    if (cur.data !== want.data) cur.data = want.data;
    return;
  }
  for (const { name } of [...cur.attributes]) if (!want.hasAttribute(name)) cur.removeAttribute(name);
  for (const { name, value } of want.attributes) if (cur.getAttribute(name) !== value) cur.setAttribute(name, value);
  adoptListeners(cur, want);
  patchList(cur, [...want.childNodes]);
  // form state h() sets as properties (a select's value follows its options, patched above)
  for (const prop of ["value", "checked", "selected"]) {
    if (!(prop in want)) continue;
    if (prop === "value" && typingIn(cur)) holdValue(cur, want.value);
    else if (cur[prop] !== want[prop]) cur[prop] = want[prop];
  }
}

// Fields whose value is typed (a redraw never writes over it while they have the focus).
const TYPED = new Set(["text", "number", "search", "email", "tel", "url", "password"]);

function typingIn(el) {
  if (el !== document.activeElement || el.readOnly || el.disabled) return false;
  return el.tagName === "TEXTAREA" || (el.tagName === "INPUT" && TYPED.has(el.type));
}

// The value a redraw drew for a field being typed in: written when the field loses focus,
// unless its change event came first (what was typed went out; the view that answers it
// brings the value).
function holdValue(el, value) {
  if (!("_held" in el)) {
    if (el.value === value) return;
    el.addEventListener("change", dropHeld);
    el.addEventListener("blur", writeHeld);
  }
  el._held = value;
}

function dropHeld() {
  delete this._held;
  this.removeEventListener("change", dropHeld);
  this.removeEventListener("blur", writeHeld);
}

function writeHeld() {
  const value = this._held;
  dropHeld.call(this);
  if (this.value !== value) this.value = value;
}

export const $ = (sel, root = document) => root.querySelector(sel);
