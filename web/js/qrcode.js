// The QR drawing (SVG from the vendored qrcode-generator's modules): a chunk of its own, which
// qr.js fetches the first time a QR code is shown.
import qrcode from "../vendor/qrcode-generator/qrcode.mjs";

const SVG = "http://www.w3.org/2000/svg";

/** Draw `text` as a QR code with a quiet zone into `svg` (an empty <svg>). */
export function drawQr(svg, text) {
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const margin = 4;
  const size = n + margin * 2;
  let d = "";
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) if (qr.isDark(y, x)) d += `M${x + margin} ${y + margin}h1v1h-1z`;
  }
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  const bg = document.createElementNS(SVG, "rect");
  bg.setAttribute("width", String(size));
  bg.setAttribute("height", String(size));
  bg.setAttribute("fill", "#fff");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000");
  svg.append(bg, path);
  svg.dataset.modules = String(n);
}
