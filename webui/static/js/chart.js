// A line chart of running totals as inline SVG (no library).
import { t } from "./i18n.js";
import { signed } from "./api.js";

const NS = "http://www.w3.org/2000/svg";
export const PALETTE = ["#c62828", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037"];

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// running: [{owner: total after round 1}, ...]; owners: the series names.
// rounds: how many rounds the x axis spans (the game's planned rounds); numbers: the
// round each running total is after (1, 2, ... unless a round is reopened: 1, 3, 4);
// word: what the game calls a round ("month" in Hachi-Hachi: M1, M2...); unit: how a
// total is written (Hachi-Hachi's mon as kan and mon, as its standings are), else signed.
export function runningChart(owners, running, rounds = running.length, numbers = null, word = "round", width = 640, height = 260,
  unit = null) {
  const said = unit || ((v) => signed(Math.round(v)));
  const pad = { l: unit ? 96 : 48, r: unit ? 170 : 110, t: 12, b: 28 };     // room for "−3 kan 4 mon"
  const points = [Object.fromEntries(owners.map((o) => [o, 0])), ...running];
  const at = [0, ...running.map((_, i) => (numbers && numbers[i]) || i + 1)];    // each point's round
  const values = points.flatMap((p) => owners.map((o) => Number(p[o] || 0)));
  let lo = Math.min(0, ...values), hi = Math.max(0, ...values);
  if (hi === lo) hi = lo + 1;
  const span = Math.max(1, rounds, ...at);
  const x = (i) => pad.l + (i * (width - pad.l - pad.r)) / span;
  const y = (v) => pad.t + ((hi - v) * (height - pad.t - pad.b)) / (hi - lo);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": `Running totals by ${word}`, class: "running-chart" });
  root.append(svg("line", { x1: pad.l, x2: width - pad.r, y1: y(0), y2: y(0), stroke: "#999", "stroke-dasharray": "4 3" }));
  for (const v of [lo, hi]) root.append(svg("text", { x: pad.l - 6, y: y(v) + 4, "text-anchor": "end", "font-size": 11, class: "value-label" }, said(v)));
  for (let i = 0; i <= span; i++) {
    root.append(svg("text", { x: x(i), y: height - 8, "text-anchor": "middle", "font-size": 11, class: "round-label",
      "data-round": i }, i === 0 ? t("start") : `${word[0].toUpperCase()}${i}`));
  }
  owners.forEach((owner, k) => {
    const colour = PALETTE[k % PALETTE.length];
    const d = points.map((p, i) => `${i ? "L" : "M"}${x(at[i]).toFixed(1)},${y(Number(p[owner] || 0)).toFixed(1)}`).join(" ");
    root.append(svg("path", { d, fill: "none", stroke: colour, "stroke-width": 2.5 }));
    points.forEach((p, i) => root.append(svg("circle", { cx: x(at[i]), cy: y(Number(p[owner] || 0)), r: 3, fill: colour,
      "data-owner": owner, "data-round": at[i] })));
    const last = points[points.length - 1];
    root.append(svg("text", { x: x(at[at.length - 1]) + 8, y: y(Number(last[owner] || 0)) + 4, fill: colour, "font-size": 12, class: "end-label" }, `${owner} ${said(Number(last[owner] || 0))}`));
  });
  return root;
}
