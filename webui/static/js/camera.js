// The live camera: getUserMedia, a camera chooser, JPEG frames posted to /api/detect a few
// times a second, boxes drawn over the video, and the stability rule applied to the codes.
import { detect } from "./api.js";
import { StabilityTracker } from "./stability.js";

const MAX_SIDE = 960;
const INTERVAL_MS = 250;

export function cropDataUrl(source, box, maxHeight = 96) {
  const [x0, y0, x1, y1] = box.map((v) => Math.max(0, Math.round(v)));
  const w = Math.max(1, Math.min(source.width - x0, x1 - x0));
  const h = Math.max(1, Math.min(source.height - y0, y1 - y0));
  const scale = Math.min(1, maxHeight / h);
  const c = document.createElement("canvas");
  c.width = Math.max(1, Math.round(w * scale));
  c.height = Math.max(1, Math.round(h * scale));
  c.getContext("2d").drawImage(source, x0, y0, w, h, 0, 0, c.width, c.height);
  return c.toDataURL("image/jpeg", 0.75);
}

export function drawBoxes(overlay, sourceWidth, sourceHeight, cards, stable, labelOf) {
  const rect = overlay.getBoundingClientRect();
  overlay.width = Math.max(1, Math.round(rect.width));
  overlay.height = Math.max(1, Math.round(rect.height));
  const ctx = overlay.getContext("2d");
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  const sx = overlay.width / sourceWidth, sy = overlay.height / sourceHeight;
  ctx.font = "13px sans-serif";
  ctx.lineWidth = 2;
  for (const c of cards) {
    const [x0, y0, x1, y1] = c.box;
    const ok = stable.has(c.code);
    ctx.strokeStyle = ok ? "#00e676" : "#ffca28";
    if (Array.isArray(c.quad) && c.quad.length === 4) {      // the card's outline, if given
      ctx.beginPath();
      c.quad.forEach(([x, y], i) => (i ? ctx.lineTo(x * sx, y * sy) : ctx.moveTo(x * sx, y * sy)));
      ctx.closePath();
      ctx.stroke();
    } else {
      ctx.strokeRect(x0 * sx, y0 * sy, (x1 - x0) * sx, (y1 - y0) * sy);
    }
    const text = `${c.code} ${labelOf(c.code)} ${Math.round(c.confidence * 100)}%`;
    const tw = ctx.measureText(text).width + 6;
    ctx.fillStyle = "rgba(0,0,0,0.65)";
    ctx.fillRect(x0 * sx, Math.max(0, y0 * sy - 17), tw, 17);
    ctx.fillStyle = ok ? "#00e676" : "#ffca28";
    ctx.fillText(text, x0 * sx + 3, Math.max(12, y0 * sy - 4));
  }
}

export class LiveCapture {
  constructor({ video, overlay, select, status, labelOf, onStable }) {
    Object.assign(this, { video, overlay, select, status, labelOf, onStable });
    this.stream = null;
    this.running = false;
    this.timer = null;
    this.frames = 0;
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
      throw new Error("no camera access here (the page must be opened on localhost or https); upload a photo instead");
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
    this.pending = new Set();
    this.running = true;
    this.frames = 0;
    this.tick();
  }

  async tick() {
    if (!this.running) return;
    const started = performance.now();
    try {
      await this.once();
    } catch (err) {
      this.status.textContent = err.status === 503 ? "detector busy, skipping a frame" : `error: ${err.message}`;
    }
    if (this.running) this.timer = setTimeout(() => this.tick(), Math.max(0, INTERVAL_MS - (performance.now() - started)));
  }

  grab() {
    const vw = this.video.videoWidth, vh = this.video.videoHeight;
    if (!vw || !vh) return null;
    const scale = Math.min(1, MAX_SIDE / Math.max(vw, vh));
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(vw * scale); canvas.height = Math.round(vh * scale);
    canvas.getContext("2d").drawImage(this.video, 0, 0, canvas.width, canvas.height);
    return canvas;
  }

  async once() {
    const canvas = this.grab();
    if (!canvas) { this.status.textContent = "waiting for the camera…"; return; }
    const blob = await new Promise((res) => canvas.toBlob(res, "image/jpeg", 0.85));
    const result = await detect(blob);
    if (!this.running) return;
    this.frames += 1;
    const stable = this.tracker.push(result.cards.map((c) => c.code));
    drawBoxes(this.overlay, canvas.width, canvas.height, result.cards, stable, this.labelOf);
    this.status.textContent = `frame ${this.frames}: ${result.cards.length} cards seen, ` +
      `${this.tracker.captured.length} captured, ${Math.round(result.ms.total)} ms` +
      (result.hints?.length ? ` (${result.hints[0]})` : "");
    for (const code of this.tracker.captured) {
      if (this.known && this.known.has(code)) continue;
      this.pending.add(code);
    }
    for (const code of [...this.pending]) {
      const seen = result.cards.find((c) => c.code === code);
      if (!seen && this.tracker.frames.length < 6) continue;
      this.pending.delete(code);
      (this.known ||= new Set()).add(code);
      this.onStable(code, seen ? cropDataUrl(canvas, seen.box) : null);
    }
  }

  end() {
    this.running = false;
    clearTimeout(this.timer);
    this.known = null;
    const ctx = this.overlay.getContext("2d");
    ctx.clearRect(0, 0, this.overlay.width, this.overlay.height);
  }

  stopStream() {
    if (this.stream) for (const t of this.stream.getTracks()) t.stop();
    this.stream = null;
  }
}

// A photo through the same pipeline: every card found goes into the pile (a still image
// needs no stability window), with crops cut from the photo as the browser shows it.
export async function detectPhoto(file) {
  const result = await detect(file);
  const url = URL.createObjectURL(file);
  const crops = new Map();
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    canvas.getContext("2d").drawImage(img, 0, 0);
    for (const c of result.cards) if (!crops.has(c.code)) crops.set(c.code, cropDataUrl(canvas, c.box));
  } catch (e) { /* crops are a nicety */ } finally { URL.revokeObjectURL(url); }
  return { result, crops };
}
