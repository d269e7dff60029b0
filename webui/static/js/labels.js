// Where to put each box's label so that no two labels overlap (fanned piles put many
// boxes close together). Pure: rectangles in, positions out.

function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

// boxes: [[x0, y0, x1, y1]] in canvas pixels; widths: per box, the label widths to try
// (longest first); height: the label height; bounds: {w, h}. Returns per box
// {x, y, w, h, choice} (choice: which width was used) or null when no spot is free.
// Long labels first; where they do not all fit, every box gets a shorter one (a fanned
// pile reads better with all codes than with a few full names).
export function placeLabels(boxes, widths, height, bounds) {
  const levels = Math.max(1, ...widths.map((w) => w.length));
  let best = null;
  for (let from = 0; from < levels; from++) {
    const out = placeFrom(boxes, widths, height, bounds, from);
    const n = out.filter(Boolean).length;
    if (!best || n > best.n) best = { out, n };
    if (n === boxes.length) break;
  }
  return best ? best.out : [];
}

function placeFrom(boxes, widths, height, bounds, from) {
  const placed = [];
  const order = boxes.map((b, i) => i).sort((i, j) => (boxes[i][1] - boxes[j][1]) || (boxes[i][0] - boxes[j][0]));
  const out = new Array(boxes.length).fill(null);
  for (const i of order) {
    const [x0, y0, x1, y1] = boxes[i];
    search:
    for (let choice = Math.min(from, widths[i].length - 1); choice < widths[i].length; choice++) {
      const w = widths[i][choice];
      const spots = [[x0, y0 - height], [x0, y0], [x0, y1], [x0, y1 - height],
        [x1 - w, y0 - height], [x1 - w, y0], [x0, (y0 + y1 - height) / 2]];
      for (const [sx, sy] of spots) {
        const r = { x: Math.min(Math.max(0, sx), Math.max(0, bounds.w - w)),
          y: Math.min(Math.max(0, sy), Math.max(0, bounds.h - height)), w, h: height, choice };
        if (placed.some((p) => overlaps(p, r))) continue;
        placed.push(r);
        out[i] = r;
        break search;
      }
    }
  }
  return out;
}
