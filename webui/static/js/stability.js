// A card enters the pile only once it is seen in at least NEED of the last WINDOW frames,
// so a single flickering frame never changes a score. Mirrors webui/stability.py.
export const WINDOW = 6;
export const NEED = 4;

export function stableCodes(frames, window = WINDOW, need = NEED) {
  const counts = new Map();
  for (const frame of frames.slice(-window)) {
    for (const code of new Set(frame)) counts.set(code, (counts.get(code) || 0) + 1);
  }
  return new Set([...counts].filter(([, n]) => n >= need).map(([code]) => code));
}

export class StabilityTracker {
  constructor(window = WINDOW, need = NEED) {
    if (!(need >= 1 && need <= window)) throw new Error("need must be between 1 and window");
    this.window = window; this.need = need;
    this.frames = [];
    this.captured = [];          // every code that became stable, in order
  }
  // Add one frame's codes; returns the codes stable now.
  push(codes) {
    this.frames.push(new Set(codes));
    if (this.frames.length > this.window) this.frames.shift();
    const now = stableCodes(this.frames, this.window, this.need);
    for (const code of [...now].sort()) {
      if (!this.captured.includes(code)) this.captured.push(code);
    }
    return now;
  }
}
