// A camera's own frame rate (frames answered a second, over the last few seconds) and
// what its status line says when the laptop is full: with many tables on one laptop each
// camera gets its turn, fewer frames than it asks for, and says so instead of stalling.
import { t, tr } from "./i18n.js";
export const WINDOW_MS = 5000;

export class FrameRate {
  constructor(windowMs = WINDOW_MS) { this.windowMs = windowMs; this.times = []; this.since = null; }

  answered(now) {
    if (this.since === null) this.since = now;
    this.times.push(now);
    this.forget(now);
  }

  forget(now) {
    while (this.times.length && now - this.times[0] > this.windowMs) this.times.shift();
  }

  // frames a second over the window (or since the first frame, when that is shorter)
  perSecond(now) {
    if (this.since === null) return 0;
    this.forget(now);
    const span = Math.min(this.windowMs, Math.max(1000, now - this.since));
    return this.times.length / (span / 1000);
  }

  text(now) { return t("{n} frames a second", { n: this.perSecond(now).toFixed(1) }); }
}

// The status line for a frame the server skipped (503): its message says the laptop is
// full and how many cameras share it; this camera's own rate goes first.
export function busyText(rate, now, message) {
  return `${t("{rate} here:", { rate: rate.text(now) })} ${tr(message) || t("this laptop is full, this frame was skipped")}`;
}
