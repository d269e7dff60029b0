// The live camera: getUserMedia, a camera chooser, JPEG frames posted to /api/detect a few
// times a second (with the weak readings: boxes below the still thresholds, drawn dashed),
// boxes drawn over the video, each box tracked (stability.js) into a pile, and a capture
// that finishes by itself once the pile has stopped changing. The localiser runs on every
// FOLLOW_EVERY-th frame (and after a change of scene); the frames between send the tracks'
// outlines for the server to follow (stability.js Follower).
import { t as tr } from "./i18n.js";
import { count, detect } from "./api.js";
import { FrameRate, busyText } from "./framerate.js";
import { placeLabels } from "./labels.js";
import { Follower, StabilityTracker, UNSURE } from "./stability.js";

const MAX_SIDE = 960;
const INTERVAL_MS = 250;
export const FINISH_MS = 3000;      // a capture ends by itself after this long without a change
export const FINISH_FRAMES = 8;     // ... and at least this many frames without one

// The boxes on `overlay`, each labelled with its code as the page shows it (`codeOf`: in
// a hwatu game the hwatu number), its name (`labelOf`) and confidence; the labels' places
// and texts are kept on the canvas (data-labels, data-texts). A weak reading's box
// (`sure: false`) is dashed; how many were drawn is kept too (data-weak). `confOf(code)`:
// the confidence the pile list shows for a card in the pile (the tracker's, its mean over
// the frames it was seen in), so the label and the list say one number (issue 66); a box
// not in the pile shows this frame's.
export function drawBoxes(overlay, sourceWidth, sourceHeight, cards, inPile, labelOf, codeOf = (code) => code,
  confOf = () => undefined) {
  const rect = overlay.getBoundingClientRect();
  overlay.width = Math.max(1, Math.round(rect.width));
  overlay.height = Math.max(1, Math.round(rect.height));
  const ctx = overlay.getContext("2d");
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  const sx = overlay.width / sourceWidth, sy = overlay.height / sourceHeight;
  ctx.font = "13px sans-serif";
  ctx.lineWidth = 2;
  const conf = (c) => (inPile.has(c.code) ? confOf(c.code) ?? c.confidence : c.confidence);
  const colour = (c) => (!inPile.has(c.code) ? "#ffca28" : conf(c) < UNSURE ? "#ff7043" : "#00e676");
  for (const c of cards) {
    ctx.strokeStyle = colour(c);
    ctx.setLineDash(c.sure === false ? [6, 4] : []);
    if (Array.isArray(c.quad) && c.quad.length === 4) {      // the card's outline, if given
      ctx.beginPath();
      c.quad.forEach(([x, y], i) => (i ? ctx.lineTo(x * sx, y * sy) : ctx.moveTo(x * sx, y * sy)));
      ctx.closePath();
      ctx.stroke();
    } else {
      const [x0, y0, x1, y1] = c.box;
      ctx.strokeRect(x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy);
    }
  }
  const texts = cards.map((c) => [`${codeOf(c.code)} ${labelOf(c.code)} ${Math.round(conf(c) * 100)}%`,
    `${codeOf(c.code)} ${Math.round(conf(c) * 100)}%`, codeOf(c.code)]);
  const widths = texts.map((t) => t.map((s) => ctx.measureText(s).width + 6));
  const boxes = cards.map((c) => [c.box[0] * sx, c.box[1] * sy, c.box[2] * sx, c.box[3] * sy]);
  const spots = placeLabels(boxes, widths, 17, { w: overlay.width, h: overlay.height });
  spots.forEach((s, i) => {
    if (!s) return;
    ctx.fillStyle = "rgba(0,0,0,0.7)";
    ctx.fillRect(s.x, s.y, s.w, s.h);
    ctx.fillStyle = colour(cards[i]);
    ctx.fillText(texts[i][s.choice], s.x + 3, s.y + 13);
  });
  ctx.setLineDash([]);
  overlay.dataset.weak = String(cards.filter((c) => c.sure === false).length);
  overlay.dataset.labels = JSON.stringify(spots.filter(Boolean).map(({ x, y, w, h }) => [x, y, w, h]));
  overlay.dataset.texts = JSON.stringify(spots.map((s, i) => s && texts[i][s.choice]).filter(Boolean));
}

export function progressText(cards, quietMs, finishing, auto) {
  const n = count(cards, "card");
  if (!cards) return tr("looking for cards…");
  const s = Math.floor(quietMs / 1000);
  return tr("{cards}, stable for {s} s", { cards: n, s }) + (finishing ? ` — ${tr("done")}`
    : auto ? ` ${tr("(ends by itself at {s} s)", { s: FINISH_MS / 1000 })}` : "");
}

export class LiveCapture {
  // onPile(tracker) after every frame; onFinish() when the pile has settled by itself.
  // readWith() -> {deck, onDeckFallback}: the deck profile to read with (api.js detect).
  constructor({ video, overlay, select, status, progress, labelOf, codeOf, onPile, onFinish, autoFinish, readWith }) {
    Object.assign(this, { video, overlay, select, status, progress, labelOf, onPile, onFinish, autoFinish });
    this.codeOf = codeOf || ((code) => code);
    this.readWith = readWith || (() => ({}));
    this.stream = null;
    this.running = false;
    this.timer = null;
    select.addEventListener("change", () => this.start(select.value));
  }

  async listCameras() {
    const devices = await navigator.mediaDevices.enumerateDevices();
    const cams = devices.filter((d) => d.kind === "videoinput");
    const current = this.stream && this.stream.getVideoTracks()[0]?.getSettings().deviceId;
    this.select.replaceChildren(...cams.map((d, i) => {
      const o = document.createElement("option");
      o.value = d.deviceId; o.textContent = d.label || `Camera ${i + 1}`;
      if (d.deviceId === current) o.selected = true;
      return o;
    }));
  }

  async start(deviceId) {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      throw new Error(tr("no camera access here (the page must be opened on localhost or https); upload a photo instead"));
    }
    this.stopStream();
    const video = deviceId ? { deviceId: { exact: deviceId } }
      : { facingMode: "environment", width: { ideal: 1280 }, height: { ideal: 720 } };
    this.stream = await navigator.mediaDevices.getUserMedia({ video, audio: false });
    this.video.srcObject = this.stream;
    await this.video.play().catch(() => {});
    await this.listCameras();
  }

  begin() {
    this.tracker = new StabilityTracker();
    this.follower = new Follower();
    this.rate = new FrameRate();
    this.running = true;
    this.changedAt = performance.now();
    this.seenChange = 0;
    this.progress.textContent = progressText(0, 0, false, false);
    this.tick();
  }

  async tick() {
    if (!this.running) return;
    const started = performance.now();
    try {
      await this.once();
    } catch (err) {
      this.status.textContent = err.status === 503 ? busyText(this.rate, performance.now(), err.message)
        : `error: ${err.message}`;
    }
    if (this.running) this.timer = setTimeout(() => this.tick(), Math.max(0, INTERVAL_MS - (performance.now() - started)));
  }

  grab(maxSide = MAX_SIDE) {
    const vw = this.video.videoWidth, vh = this.video.videoHeight;
    if (!vw || !vh) return null;
    const scale = Math.min(1, maxSide / Math.max(vw, vh));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(vw * scale); canvas.height = Math.round(vh * scale);
    canvas.getContext("2d").drawImage(this.video, 0, 0, canvas.width, canvas.height);
    return canvas;
  }

  async once() {
    const canvas = this.grab();
    if (!canvas) { this.status.textContent = tr("waiting for the camera…"); return; }
    const blob = await new Promise((res) => canvas.toBlob(res, "image/jpeg", 0.85));
    const t = this.tracker;
    const plan = this.follower.plan(t);
    const follow = plan === null ? null : Follower.boxes(plan);
    const result = await detect(blob, { crops: true, weak: true, follow, ...this.readWith() });
    if (!this.running) return;
    this.rate.answered(performance.now());
    const pile = t.push(result.cards);
    this.follower.answered(plan);
    if (t.changedAt !== this.seenChange) { this.seenChange = t.changedAt; this.changedAt = performance.now(); }
    drawBoxes(this.overlay, canvas.width, canvas.height, result.cards, new Set(pile), this.labelOf, this.codeOf,
      (code) => t.confidence(code));
    const quietMs = performance.now() - this.changedAt;
    const auto = this.autoFinish();
    const finishing = auto && pile.length > 0 && t.quietFrames >= FINISH_FRAMES && quietMs >= FINISH_MS;
    this.progress.textContent = progressText(pile.length, quietMs, finishing, auto);
    const faint = result.cards.filter((c) => c.sure === false).length;
    this.status.textContent = `${tr("frame")} ${t.frame}: ${count(result.cards.length - faint, "box", "boxes")}` +
      (faint ? ` (+${faint} faint)` : "") + `, ${Math.round(result.ms.total)} ms, ` +
      this.rate.text(performance.now()) +
      (result.hints?.length ? ` (${result.hints[0]})` : "");
    this.onPile(t);
    if (finishing) this.onFinish();
  }

  end() {
    this.running = false;
    clearTimeout(this.timer);
    const ctx = this.overlay.getContext("2d");
    ctx.clearRect(0, 0, this.overlay.width, this.overlay.height);
  }

  stopStream() {
    if (this.stream) for (const t of this.stream.getTracks()) t.stop();
    this.stream = null;
  }
}

// A photo through the same pipeline: every card found goes into the pile (a still image
// needs no stability window), with the detector's crops; the photo comes back as an object
// URL for the page to show with its boxes.
export async function detectPhoto(file, readWith = {}) {
  const result = await detect(file, { crops: true, ...readWith });
  const crops = new Map(), conf = new Map();      // per code: its surest box
  for (const c of result.cards) {
    if (conf.has(c.code) && conf.get(c.code) >= c.confidence) continue;
    conf.set(c.code, c.confidence);
    if (c.crop) crops.set(c.code, c.crop);
  }
  return { result, crops, conf, url: URL.createObjectURL(file) };
}
