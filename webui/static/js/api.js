// Calls to the JSON API. Every state-changing request carries the anti-CSRF header
// the server requires; errors become Error objects with the server's message.
import { t } from "./i18n.js";

export const CSRF_HEADER = { "X-Requested-With": "hanafuda" };

export class ApiError extends Error {
  constructor(status, message, data = null) { super(message); this.status = status; this.data = data; }
}

async function parse(resp) {
  let data = null;
  try { data = await resp.json(); } catch (e) { data = null; }
  if (!resp.ok) {
    throw new ApiError(resp.status, (data && data.error) || `HTTP ${resp.status}`, data);
  }
  return data;
}

export async function api(method, url, body) {
  const opts = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (method !== "GET") Object.assign(opts.headers, CSRF_HEADER);
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  return parse(await fetch(url, opts));
}

// A multipart upload (FormData), e.g. images to /api/decks/preview.
export async function upload(url, form) {
  return parse(await fetch(url, { method: "POST", credentials: "same-origin",
    headers: { ...CSRF_HEADER, Accept: "application/json" }, body: form }));
}

// This tab's camera, named to the server's turns (one frame of it waits at a time).
const CLIENT_ID = Math.random().toString(36).slice(2, 12);

// With a deck: read with its profile; when the server cannot (a 400: the deck deleted
// since, a model without card embeddings), once more without it, then onDeckFallback(message).
// `weak` (the live camera's frames only): the weak readings too, after the cards ("sure": false).
// `follow` (a live frame between the localiser's): the outlines of the page's tracks
// ([{quad, sure?}], stability.js Follower.boxes), followed onto the frame without the localiser.
export async function detect(blob, { crops = false, weak = false, follow = null, deck = null, onDeckFallback = null } = {}) {
  const post = async (withDeck) => {
    const query = new URLSearchParams();
    if (crops) query.set("crops", "1");
    if (weak) query.set("weak", "1");
    if (follow) query.set("follow", JSON.stringify(follow.map((b) => ({ ...b,
      quad: b.quad.map(([x, y]) => [Math.round(x * 10) / 10, Math.round(y * 10) / 10]) }))));
    if (withDeck) query.set("deck", withDeck);
    const q = query.toString();
    return parse(await fetch(q ? `/api/detect?${q}` : "/api/detect", {
      method: "POST", credentials: "same-origin",
      headers: { ...CSRF_HEADER, "Content-Type": blob.type || "application/octet-stream",
        "X-Client": CLIENT_ID },
      body: blob,
    }));
  };
  if (!deck) return post(null);
  try { return await post(deck); } catch (err) {
    if (err.status !== 400) throw err;
    const plain = await post(null);           // throws if the image itself is bad
    if (onDeckFallback) onDeckFallback(err.message);
    return plain;
  }
}

// A short message at the bottom of the window for 4 s. It takes no clicks (they go to
// what lies under it) and fades while the pointer is over it, so it hides no button.
export function toast(message, isError = false) {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = message;
  el.classList.toggle("error", isError);
  el.classList.remove("faded");
  el.hidden = false;
  // the room the page keeps below its last button while a toast shows (a phone: app.css)
  document.body.style.setProperty("--toast-room", `${Math.ceil(el.getBoundingClientRect().height) + 16}px`);
  document.body.classList.add("toasting");
  if (!el.dataset.fades) {
    el.dataset.fades = "1";
    document.addEventListener("pointermove", (e) => {
      if (el.hidden) return;
      const r = el.getBoundingClientRect();
      const over = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
      el.classList.toggle("faded", over);
    });
  }
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { el.hidden = true; document.body.classList.remove("toasting"); }, 4000);
}

// "1 card", "2 cards": a count with its noun (plural by an s unless given).
export function count(n, noun, plural = `${noun}s`) {
  return t(n === 1 ? `{n} ${noun}` : `{n} ${plural}`, { n });
}

// A whole number as the page shows it: negatives with the minus sign (U+2212), as the
// penalties are, so that -30 and a penalty of 50 read alike.
export function signed(n) {
  return typeof n === "number" && n < 0 ? `\u2212${-n}` : String(n ?? "");
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// "2026-11-30 19:26" in the viewer's own time zone (the server stores UTC).
export function localTime(iso) {
  const d = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

// A button that asks first: it becomes "<question>" (class `yesClass`) and `noText`
// ("Keep it", or what not doing it means where that reads two ways); yes runs `onYes`,
// the other `onNo` (both usually redraw what the button was in).
export function askBefore(button, question, onYes, onNo, yesClass = "confirm", noText = t("Keep it")) {
  button.addEventListener("click", () => {
    const yes = el("button", { type: "button", class: `danger ${yesClass}` }, question);
    const no = el("button", { type: "button", class: "keep" }, noText);
    button.replaceWith(yes, no);
    no.addEventListener("click", onNo);
    yes.addEventListener("click", onYes);
  });
}

// A Delete button that asks first (askBefore): yes sends DELETE to `url`, then (either
// way) `reload` redraws the list.
export function askFirst(button, question, url, done, reload) {
  askBefore(button, question, async () => {
    try { await api("DELETE", url); toast(done); } catch (err) { toast(err.message, true); }
    reload();
  }, reload, "confirm-delete");
}
