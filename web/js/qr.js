// A link as a QR code (the lobby's share link, the screen link, a seat's hand-off). The drawing
// (qrcode.js and the QR generator) is a chunk of its own, fetched the first time one is shown:
// the <svg> is returned at once and drawn when the chunk is here (at once after that).
const SVG = "http://www.w3.org/2000/svg";
let draw = null; // qrcode.js's drawQr, once loaded
let loading = null;

/** An <svg> of `text` as a QR code; `label` names it for screen readers. */
export function qrSvg(text, label) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "qr");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  svg.setAttribute("shape-rendering", "crispEdges");
  if (draw) draw(svg, text);
  else {
    loading ||= import("./qrcode.js").then((m) => (draw = m.drawQr));
    loading.then(() => draw(svg, text));
  }
  return svg;
}
