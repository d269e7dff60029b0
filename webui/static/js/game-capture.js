// The game page's capture: a pile from the live camera (the tracker's pile followed into the
// draft) or from an uploaded photo, and the side panel that shows either.
import { t } from "./i18n.js";
import { count, toast } from "./api.js";
import { LiveCapture, detectPhoto, drawBoxes } from "./camera.js";
import { followCamera } from "./piles.js";
import { $, checksOf, codeOf, draftOf, labelOf, openDraft, pileOf, shownCodes, state } from "./game-state.js";
import { shrinkPhoto, tooLargeText } from "./shrink.js";
import { render, renderDeck, renderPiles } from "./game-render.js";

// The deck profile frames are read with: the game's deck while it is enrolled and usable.
function readWith() {
  const g = state.game;
  const deck = g.deck && g.deck_enrolled && !state.deckFallback ? g.deck : null;
  return { deck, onDeckFallback: (message) => { state.deckFallback = message; renderDeck(); } };
}

let live = null;

function liveCapture() {
  if (!live) {
    live = new LiveCapture({
      video: $("video"), overlay: $("overlay"), select: $("camera-select"), status: $("camera-status"),
      progress: $("capture-progress"), labelOf, codeOf, autoFinish: () => $("auto-finish").checked, readWith,
      onPile: (tracker) => {
        const draft = draftOf(state.capturing);
        if (!draft) return;
        const now = tracker.pile;
        // joined on weak readings alone: marked until accepted or seen surely since
        const faint = now.filter((code) => tracker.unsure(code) && !draft.checked.has(code));
        const faintChanged = faint.join() !== now.filter((code) => draft.faint(code)).join();
        if (now.join() === draft.detected.join() && !faintChanged) return;
        draft.codes = followCamera(draft.codes, draft.detected, now, state.removedByHand);
        draft.detected = [...now];
        for (const code of now) {
          const card = draft.card(code);
          const crop = tracker.crop(code);
          if (crop) card.crop = crop;
          card.conf = tracker.confidence(code);
          card.rival = tracker.rival(code);
          if (faint.includes(code)) card.faint = true; else delete card.faint;
        }
        renderPiles();
      },
      onFinish: () => {
        const owner = state.capturing;
        endCapture(true);
        const codes = shownCodes(owner);
        const marked = checksOf(owner, state.deck).size;
        toast(`${owner}: ${t("{cards} captured", { cards: count(codes.length, "card") })} — ` +
          (marked ? (marked === 1 ? t("check the marked one, then save") : t("check the {n} marked ones, then save", { n: marked }))
            : t("save the pile")));
      },
    });
  }
  return live;
}

export function showSide(which) {
  $("camera-panel").hidden = which !== "camera";
  $("photo-panel").hidden = which !== "photo";
  $("workspace").classList.toggle("with-side", !!which);
}

export async function startCapture(owner) {
  if (state.capturing) endCapture(true);
  state.capturing = owner;
  state.removedByHand = new Set();
  forgetCamera(owner);
  pileOf(owner).note = "";
  openDraft(owner, "camera");
  $("capture-owner").textContent = t("{owner}'s pile", { owner });
  showSide("camera");
  $("camera-status").textContent = t("starting the camera…");
  $("capture-progress").textContent = "starting…";
  render();
  // side by side: the pile being captured at the top beside the (sticky) video;
  // stacked on a phone: the video
  showCapture(owner);
  const cam = liveCapture();
  try {
    if (!cam.stream) await cam.start($("camera-select").value || null);
    if (state.capturing === owner) { cam.begin(); showCapture(owner); }   // the video has its size now
  } catch (err) {
    const why = err.name === "NotFoundError" ? t("no camera found") : err.name === "NotAllowedError"
      ? t("the camera was not allowed") : err.message;
    $("capture-progress").textContent = t("no camera");
    $("camera-status").textContent = t("camera unavailable: {why}. Use Upload photo (a photo taken with any camera) or Add cards instead.", { why });
    toast(t("camera unavailable: {why} — use Upload photo instead", { why }), true);
  }
}

// Side by side: the pile being captured as high as it goes beside the (sticky) video,
// but never so high that the video's top leaves the window (near the page's end the
// sticky panel would be pushed up with it). Stacked on a phone: the video.
function showCapture(owner) {
  const panel = $("camera-panel");
  if (!window.matchMedia("(min-width: 821px)").matches) { panel.scrollIntoView({ block: "nearest" }); return; }
  document.querySelector(`article.pile[data-owner="${CSS.escape(owner)}"]`)?.scrollIntoView({ block: "start" });
  const top = panel.getBoundingClientRect().top;
  if (top < 0) window.scrollBy(0, top - 8);
}

// Drop an owner's unsaved pile and what the camera said about it.
export function forgetCamera(owner) {
  pileOf(owner).forget();
}

export function endCapture(keep) {
  const owner = state.capturing;
  if (live) { live.end(); live.stopStream(); }
  state.capturing = null;
  showSide(null);
  if (!keep && owner) forgetCamera(owner);
  render();
}

export async function photo(owner) {
  const input = $("photo-input");
  input.value = "";
  input.onchange = async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    const pile = pileOf(owner);
    pile.note = "";
    let shrunk = { blob: file };
    try {
      if (state.capturing) endCapture(true);
      shrunk = await shrinkPhoto(file);     // a phone's 12 MB photo: about 1 MB
      const { result, crops, conf, url } = await detectPhoto(shrunk.blob, readWith());
      const codes = [...conf.keys()];
      forgetCamera(owner);
      const draft = openDraft(owner, "photo", codes, codes);
      for (const [code, crop] of crops) draft.card(code).crop = crop;
      for (const [code, p] of conf) draft.card(code).conf = p;
      render();
      await showPhoto(owner, url, result, shrunk.note);
      toast(t("{cards} found in the photo", { cards: count(codes.length, "card") }) +
        (result.hints?.length ? `: ${result.hints[0]}` : ""));
    } catch (err) {
      // said once, beside the pile: the photo, not the round, failed
      pile.note = `${t("photo not read:")} ${err.status === 413 ? tooLargeText(shrunk.blob, err, shrunk.unread) : err.message}`;
      renderPiles();
    }
  };
  input.click();
}

// The uploaded photo with the boxes the detector found, beside the pile list.
async function showPhoto(owner, url, result, note = "") {
  const img = $("photo-image");
  if (img.dataset.url) URL.revokeObjectURL(img.dataset.url);
  img.src = url;
  img.dataset.url = url;
  $("photo-owner").textContent = t("{owner}'s pile", { owner });
  $("photo-status").textContent = t("{boxes}; a card with no box was not seen: add it by hand or take another photo", { boxes: count(result.cards.length, "box", "boxes") }) +
    (note ? ` (${note})` : "");
  showSide("photo");
  await img.decode().catch(() => {});
  drawBoxes($("photo-overlay"), result.width, result.height, result.cards,
    new Set(result.cards.map((c) => c.code)), labelOf, codeOf);
}
