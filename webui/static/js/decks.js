// The decks page: the enrolled decks (export, delete after asking) and *Enrol your deck*:
// four layout photos (camera or files) and/or single-card images named MM-K.png go to
// /api/decks/preview; each crop comes back named by its place in the layout, the player
// confirms or fixes it, and the confirmed crops are saved (POST /api/decks, or PUT to
// replace a deck of that name). Each crop shows the network's reading of it, marked
// *unclear* where the server says so (another card or none, unsure, blurred, too small);
// *Retake* takes that one card again (the live camera or a file) and replaces its crop
// (/api/decks/preview?retake=1); nothing is saved before *Save deck*.
import { t } from "./i18n.js";
import { api, askFirst, count, el, localTime, toast, upload } from "./api.js";
import { LiveCapture } from "./camera.js";
import { cardLabel, loadCards } from "./cards.js";

const $ = (id) => document.getElementById(id);
const PHOTO_SIDE = 2400;              // layout photos are sent at most this large
const SCAN_SIDE = 600;                // ... single-card images this large
const RETAKE_SIDE = 1280;             // ... a retake (a photo the card is found in) this large
const state = { cards: null, photos: [], scans: [], items: [], camera: null, shooting: 0, chooseFor: 0,
  retake: null };
// why the server marks a crop unclear (scorer/vision/enrol.py), as the page says it
const UNCLEAR = { "other card": () => t("the network reads another card"), unsure: () => t("the network is unsure"),
  blurred: () => t("blurred"), small: () => t("too small in the photo") };

async function loadDecks() {
  const { decks } = await api("GET", "/api/decks");
  $("no-decks").hidden = decks.length > 0;
  $("decks-body").replaceChildren(...decks.map((d) => {
    const path = `/api/decks/${encodeURIComponent(d.name)}`;
    const del = el("button", { type: "button", class: "delete" }, t("Delete"));
    askFirst(del, t("Delete deck {name} for good", { name: d.name }), path, t("deck {name} deleted", { name: d.name }), loadDecks);
    return el("tr", { dataset: { deck: d.name } },
      el("td", { class: "name", text: d.name }), el("td", { class: "cards", text: `${d.cards}/48` }),
      el("td", { text: d.crops }), el("td", { title: d.updated_at, text: localTime(d.updated_at) }),
      el("td", { class: "actions" }, el("a", { href: `${path}/export.json`, class: "export" }, t("Export JSON")), " ", del));
  }));
}

// An image made small enough to send: drawn into a canvas at most `side` px a side when
// larger (or heavier than `bytes`); a file the browser cannot decode goes as it is, for
// the server to say what is wrong with it.
async function shrink(file, side, bytes) {
  let bitmap;
  try { bitmap = await createImageBitmap(file); } catch (e) { return file; }
  const scale = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
  if (scale === 1 && file.size <= bytes) { bitmap.close(); return file; }
  const canvas = el("canvas", { width: Math.round(bitmap.width * scale), height: Math.round(bitmap.height * scale) });
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  return new Promise((res) => canvas.toBlob(res, "image/jpeg", 0.92));
}

function setPhoto(n, blob) {
  const old = state.photos[n - 1];
  if (old) URL.revokeObjectURL(old.url);
  state.photos[n - 1] = blob ? { blob, url: URL.createObjectURL(blob) } : null;
  const slot = document.querySelector(`.layout-photo[data-photo='${n}']`);
  const thumb = slot.querySelector(".thumb");
  thumb.hidden = !blob;
  if (blob) thumb.src = state.photos[n - 1].url; else thumb.removeAttribute("src");
  slot.querySelector(".clear").hidden = !blob;
  slot.classList.toggle("has-photo", !!blob);
  slot.querySelector(".photo-status").textContent = blob ? t("photo {n} ready", { n }) : t("no photo yet");
}

async function openCamera(n, retake = null) {
  state.shooting = n;
  state.retake = retake;
  $("snap").textContent = retake === null ? t("Take photo {n}", { n })
    : t("Retake {code}", { code: state.items[retake].code || state.items[retake].proposed });
  if (retake !== null) $("enrol-camera").scrollIntoView({ block: "nearest" });
  $("enrol-camera").hidden = false;
  $("enrol-error").textContent = "";
  if (state.camera.stream) return;
  try {
    $("camera-status").textContent = t("starting the camera…");
    await state.camera.start();
    $("camera-status").textContent = "";
  } catch (err) {
    $("enrol-camera").hidden = true;
    $("enrol-error").textContent = `${t("camera")}: ${err.message}`;
  }
}

function closeCamera() {
  state.camera.stopStream();
  $("enrol-camera").hidden = true;
}

async function snap() {
  const retake = state.retake;
  const canvas = state.camera.grab(retake === null ? PHOTO_SIDE : RETAKE_SIDE);
  if (!canvas) { $("camera-status").textContent = t("waiting for the camera…"); return; }
  if (retake !== null) {
    state.retake = null;
    closeCamera();
    retakeCard(retake, await new Promise((res) => canvas.toBlob(res, "image/jpeg", 0.92)));
    return;
  }
  const n = state.shooting;
  setPhoto(n, await new Promise((res) => canvas.toBlob(res, "image/jpeg", 0.92)));
  const next = [1, 2, 3, 4].find((k) => !state.photos[k - 1]);
  if (next) openCamera(next); else closeCamera();
}

async function findCards() {
  $("enrol-error").textContent = "";
  const form = new FormData();
  state.photos.forEach((p, i) => { if (p) form.append("images", p.blob, `photo-${i + 1}.jpg`); });
  for (const f of state.scans) form.append("images", await shrink(f, SCAN_SIDE, 150_000), f.name);
  if (!form.has("images")) {
    $("enrol-error").textContent = t("take or choose the four layout photos first (or card images named by code)");
    return;
  }
  $("find-cards").disabled = true;
  $("find-status").textContent = t("finding the cards…");
  try {
    showReview(await upload("/api/decks/preview", form));
    $("find-status").textContent = "";
  } catch (err) {
    $("find-status").textContent = "";
    $("enrol-error").textContent = err.message;
    $("review").hidden = true;
  } finally {
    $("find-cards").disabled = false;
  }
}

function codeSelect(item) {
  const sel = el("select", { class: "code", "aria-label": t("card from {source}", { source: item.source }) },
    el("option", { value: "", text: t("(leave out)") }),
    state.cards.cards.map((c) => el("option", { value: c.code, text: `${c.code} ${cardLabel(state.cards, c.code)}` })));
  sel.value = item.code;
  return sel;
}

// What the network reads on a crop: "the network reads 01-1 Pine: crane (91%)", or no card.
function readingLine(item) {
  if (!item.reading) return t("the network sees no card here");
  const said = t("the network reads {code}", { code: `${item.reading} ${cardLabel(state.cards, item.reading)}` });
  return `${said} (${Math.round(100 * item.confidence)}%)`;
}

// One crop of the review: its picture, its name (to fix), the network's reading, the
// mark of an unclear one, and its retake (camera or file).
function cropFigure(item, i) {
  const sel = codeSelect(item);
  const unclear = item.unclear || [];
  const status = el("span", { class: "retake-status small muted", role: "status" });
  const fig = el("figure", { class: "enrol-crop", dataset: { index: i, code: item.code } },
    el("img", { src: item.crop, alt: `${item.code} ${item.name}` }), sel,
    el("figcaption", { class: "small muted" }, item.source),
    el("div", { class: "reading small", text: readingLine(item) }),
    unclear.length ? el("p", { class: "unclear-mark small" },
      `${t("Unclear")}: ${unclear.map((why) => (UNCLEAR[why] ? UNCLEAR[why]() : why)).join(" · ")}`) : null,
    el("div", { class: "retake-actions" },
      el("button", { type: "button", class: "retake", onclick: () => openCamera(state.shooting || 1, i) }, t("Retake")),
      el("button", { type: "button", class: "retake-file", onclick: () => { state.retake = i; $("retake-input").click(); } },
        t("Choose a file"))),
    status);
  fig.classList.toggle("unclear", unclear.length > 0);
  fig.classList.toggle("fixed", !!item.code && item.code !== item.proposed);
  sel.addEventListener("change", () => {
    item.code = sel.value;
    fig.dataset.code = item.code;
    fig.classList.toggle("fixed", item.code !== item.proposed);
    refresh();
  });
  return fig;
}

// Take card i again: its one image goes to the preview named by the card's code (the
// name the player gave it, else its place's), and its crop and reading replace the old.
async function retakeCard(i, blob) {
  const old = state.items[i];
  const code = old.code || old.proposed;
  const fig = () => document.querySelector(`#review-grid figure[data-index='${i}']`);
  const status = fig().querySelector(".retake-status");
  status.classList.remove("error-message");
  status.textContent = t("reading the card…");
  const form = new FormData();
  form.append("images", await shrink(blob, RETAKE_SIDE, 1_500_000), `${code}.jpg`);
  try {
    const res = await upload("/api/decks/preview?retake=1", form);
    state.items[i] = { ...res.cards[0], code, proposed: old.proposed, retaken: true };
    fig().replaceWith(cropFigure(state.items[i], i));
    fig().classList.add("retaken");
    refresh();
  } catch (err) {
    status.textContent = err.message;
    status.classList.add("error-message");
  }
}

function showReview(res) {
  state.items = res.cards.map((c) => ({ ...c, proposed: c.code }));
  $("review-grid").replaceChildren(...state.items.map(cropFigure));
  const where = [res.photos ? count(res.photos, "photo") : "",
    res.scans ? count(res.scans, "card image") : ""].filter(Boolean).join(t(" and "));
  $("review-summary").textContent = t("{cards} found in {where} ({s} s). Each is named by its place in the layout: " +
    "fix any name that is wrong, or leave a card out.", { cards: count(res.cards.length, "card"), where, s: res.seconds });
  $("review").hidden = false;
  $("save-error").textContent = "";
  $("replace-deck").hidden = true;
  refresh();
}

function refresh() {
  const count = new Map();
  for (const item of state.items) if (item.code) count.set(item.code, (count.get(item.code) || 0) + 1);
  const twice = [...count].filter(([, n]) => n > 1).map(([code]) => code);
  for (const fig of document.querySelectorAll("#review-grid figure")) {
    fig.classList.toggle("duplicate", twice.includes(fig.dataset.code));
  }
  const missing = state.cards.cards.map((c) => c.code).filter((code) => !count.has(code));
  $("missing").textContent = (missing.length ? `${t("Missing (read by the network alone): {codes}.", { codes: missing.join(" ") })} `
    : `${t("All 48 cards.")} `) + (twice.length ? t("Given twice: {codes} — fix one of each.", { codes: twice.join(" ") }) : "");
  $("missing").classList.toggle("error-message", twice.length > 0);
  $("save-deck").disabled = twice.length > 0 || count.size === 0;
}

async function saveDeck(replace) {
  const name = $("deck-name").value.trim().replace(/\s+/g, " ");    // as the server cleans it
  const cards = state.items.filter((i) => i.code).map(({ code, crop, source }) => ({ code, crop, source }));
  $("save-error").textContent = "";
  $("save-deck").disabled = true;
  try {
    const rec = replace ? await api("PUT", `/api/decks/${encodeURIComponent(name)}`, { cards })
      : await api("POST", "/api/decks", { name, cards });
    toast(t("deck {name} saved: {n} of 48 cards", { name: rec.name, n: rec.cards }));
    $("review").hidden = true;
    state.items = [];
    for (const n of [1, 2, 3, 4]) setPhoto(n, null);
    state.scans = [];
    $("scan-files").value = "";
    $("scan-status").textContent = "";
    await loadDecks();
  } catch (err) {
    $("save-error").textContent = err.status === 409 ? `${err.message}.` : err.message;
    $("replace-deck").hidden = err.status !== 409;
    $("replace-deck").textContent = t("Replace deck {name}", { name });
  } finally {
    refresh();
  }
}

function wire() {
  for (const slot of document.querySelectorAll(".layout-photo")) {
    const n = Number(slot.dataset.photo);
    slot.querySelector(".take").addEventListener("click", () => openCamera(n));
    slot.querySelector(".choose").addEventListener("click", () => { state.chooseFor = n; $("photo-file").click(); });
    slot.querySelector(".clear").addEventListener("click", () => setPhoto(n, null));
  }
  for (const row of document.querySelectorAll(".layout-row")) row.style.setProperty("--month", row.dataset.colour);
  $("retake-input").addEventListener("change", (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (file && state.retake !== null) retakeCard(state.retake, file);
    state.retake = null;
  });
  $("photo-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (file) setPhoto(state.chooseFor, await shrink(file, PHOTO_SIDE, 2_000_000));
  });
  $("scan-files").addEventListener("change", (e) => {
    state.scans = [...e.target.files];
    $("scan-status").textContent = state.scans.length ? `${count(state.scans.length, "image")} chosen` : "";
  });
  $("snap").addEventListener("click", snap);
  $("camera-close").addEventListener("click", closeCamera);
  $("find-cards").addEventListener("click", findCards);
  $("save-deck").addEventListener("click", () => saveDeck(false));
  $("replace-deck").addEventListener("click", () => { $("replace-deck").hidden = true; saveDeck(true); });
  state.camera = new LiveCapture({ video: $("video"), overlay: $("overlay"), select: $("camera-select"),
    status: $("camera-status"), progress: $("capture-progress"), labelOf: (c) => c,
    onPile: () => {}, onFinish: () => {}, autoFinish: () => false });
}

async function main() {
  wire();
  state.cards = await loadCards();
  await loadDecks();
  document.body.dataset.ready = "1";
}

main().catch((err) => { toast(err.message, true); document.body.dataset.ready = "error"; });
