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
        el.addEventListener(key.slice(2), value);
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

export const $ = (sel, root = document) => root.querySelector(sel);
