// One game's page: the open round's piles (capture, photo, hand fixes), confirming the
// round, its result, the standings with a chart, and the rounds played. The page's state
// and pile drafts are game-state.js, capture game-capture.js, the writes game-edit.js and
// the rendering game-render.js; this module loads the game and wires them together.
import { t } from "./i18n.js";
import { api, toast } from "./api.js";
import { loadCards, useHwatu, wordsOf } from "./cards.js";
import { endCapture, forgetCamera, photo, showSide, startCapture } from "./game-capture.js";
import { addCard, applyChanges, confirmRound, correction, fixCard, loadDecks, reopenRound, replaceCard, savePile, setDeck,
  setLearn, showRescores } from "./game-edit.js";
import { lastRescores } from "./rescore.js";
import { forgetUnsaved, unsavedKey } from "./drafts.js";
import { actions, render, renderPiles } from "./game-render.js";
import { $, base, gameId, restorePiles, state } from "./game-state.js";

Object.assign(actions, {
  capture: startCapture,
  photo,
  add: addCard,
  fix: fixCard,
  replace: replaceCard,
  remove: (owner, code) => correction(owner, "remove", code, null),
  save: savePile,
  discard: (owner) => { forgetCamera(owner); render(); },
  apply: applyChanges,
  reopen: reopenRound,
});

async function main() {
  state.deck = await loadCards();
  state.game = await api("GET", base);
  const wordsKey = `hanafuda:words:${state.game.id}`;     // this browser's choice for the game
  const stored = (() => { try { return localStorage.getItem(wordsKey); } catch { return null; } })();
  useHwatu(state.deck, state.game.ruleset.game, stored);
  $("card-words").value = wordsOf(state.deck);
  $("card-words").addEventListener("change", () => {
    try { localStorage.setItem(wordsKey, $("card-words").value); } catch { /* storage off: this page only */ }
    useHwatu(state.deck, state.game.ruleset.game, $("card-words").value);
    // the round form's labels too, keeping what was typed in it
    const typed = [...$("round-context").querySelectorAll("[data-key]")]
      .map((i) => [`${i.dataset.key}|${i.dataset.player || ""}`, i.value]);
    $("round-context").dataset.round = "";
    render();
    const inputs = new Map([...$("round-context").querySelectorAll("[data-key]")]
      .map((i) => [`${i.dataset.key}|${i.dataset.player || ""}`, i]));
    for (const [k, v] of typed) if (inputs.has(k)) inputs.get(k).value = v;
    $("round-context").dispatchEvent(new Event("input"));      // the go order's visibility
  });
  const done = state.game.rounds.filter((r) => r.confirmed);
  if (done.length) state.lastResult = done[done.length - 1];
  // a reopened round confirmed again last: its result, with what it changed (kept with the game)
  const rescored = lastRescores(state.game);
  const again = rescored && done.find((r) => r.number === rescored.round);
  if (again) { state.lastResult = again; showRescores(again.number, rescored.entries); }
  $("confirm-round").addEventListener("click", confirmRound);
  await loadDecks().catch((err) => toast(`decks: ${err.message}`, true));
  $("game-deck").addEventListener("change", setDeck);
  $("learn-deck").addEventListener("change", setLearn);
  $("capture-done").addEventListener("click", () => endCapture(true));
  $("capture-cancel").addEventListener("click", () => endCapture(false));
  $("photo-close").addEventListener("click", () => showSide(null));
  $("zoom-close").addEventListener("click", () => { $("zoom").hidden = true; });
  $("zoom").addEventListener("click", (e) => { if (e.target === $("zoom")) $("zoom").hidden = true; });
  const kept = restorePiles();
  if (kept.length) toast(t("unsaved {owners} pile kept from before: save it or discard it", { owners: kept.join(", ") }));
  render();
  // another tab's unsaved piles (drafts.js): shown as they change; this tab's go with it
  const unsaved = () => unsavedKey(gameId, state.game.open_round);
  window.addEventListener("storage", (e) => { if (state.game.open_round && e.key === unsaved()) renderPiles(); });
  window.addEventListener("pagehide", () => { if (state.game.open_round) forgetUnsaved(unsaved()); });
  document.body.dataset.ready = "1";
}

main().catch((err) => { toast(err.message, true); document.body.dataset.ready = "error"; });
