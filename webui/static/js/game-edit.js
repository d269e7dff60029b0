// The game page's writes: pile edits (kept in the draft while there is one, else sent as a
// correction), saving a pile, confirming the round, and the game's deck settings.
import { api, count, el, toast } from "./api.js";
import { cardLabel, pickCard, shownCode, wordsOf } from "./cards.js";
import { describeRescore, lastRescores } from "./rescore.js";
import { $, base, draftOf, openDraft, openRound, pictures, pileOf, roundWord, roundsNamed, savedPile, savedVersion,
  shownCodes, staleOf, state, storeExpected, unsavedOwners, usedFlags } from "./game-state.js";
import { context, formWords, missingContext, render, renderDeck, showPileError, showRoundError } from "./game-render.js";
import { fieldUnsaid, forgetForm, formKey } from "./month-form.js";
import { t, tr } from "./i18n.js";

// A 409 for a stale write: the pile as it is now, and this screen's change kept as a draft
// made on the pile it saw, shown as its changes ("add 09-1") to apply onto the pile now.
async function showStale(owner, err) {
  if (err.status !== 409 || !err.data || !err.data.stale) return false;
  state.game = await api("GET", base);
  const pile = state.piles.get(owner);
  if (pile && pile.open) pile.stale = true;
  render();           // the pile's box says it, once (changesBox), beside what to do
  return true;
}

// Apply this screen's changes onto the owner's pile as it now is (its other cards, and
// their crops and what the camera found, stay), as one save on the pile's version.
export async function applyChanges(owner) {
  const pile = pileOf(owner);
  const saved = savedPile(owner);
  const codes = pile.appliedOnto(saved ? saved.codes : []);
  const crops = Object.fromEntries(Object.entries({ ...((saved && saved.crops) || {}), ...pile.cropsOf(codes) })
    .filter(([code]) => codes.includes(code)));
  try {
    const data = await api("PUT", `${base}/rounds/${state.game.open_round}/piles`,
      { owner, codes, detected: saved ? saved.detected : pile.detected, source: saved ? saved.source : pile.source,
        version: savedVersion(owner), crops, words: wordsOf(state.deck) });
    pile.close();
    pile.note = "";
    state.game = data.game;
    render();
    toast(t("{owner}'s pile saved with your changes", { owner }));
  } catch (err) {
    if (!(await showStale(owner, err))) showPileError(owner, err);
  }
}

export async function correction(owner, action, oldCode, newCode) {
  const rnd = openRound();
  let draft = draftOf(owner);
  if (!draft && !(rnd && rnd.piles[owner])) draft = openDraft(owner, "manual");   // a pile by hand
  if (draft) {
    const codes = draft.codes;
    if (owner === state.capturing && oldCode) state.removedByHand.add(oldCode);
    if (action === "remove") codes.splice(codes.indexOf(oldCode), 1);
    else if (action === "add") { if (!codes.includes(newCode)) codes.push(newCode); }
    else if (!codes.includes(newCode)) { codes[codes.indexOf(oldCode)] = newCode; draft.fixed(oldCode, newCode); }
    render();
    return;
  }
  const seen = savedPile(owner);       // the pile the correction is made on, as this page has it
  const version = savedVersion(owner);
  try {
    const data = await api("POST", `${base}/rounds/${state.game.open_round}/corrections`,
      { owner, action, old_code: oldCode, new_code: newCode, version, words: wordsOf(state.deck) });
    pileOf(owner).note = "";
    state.game = data.game;
    render();
    toast(t("correction saved"));
  } catch (err) {
    if (err.status === 409 && err.data && err.data.stale && seen) {
      // kept as a draft made on the pile this page saw: the change is not lost
      const codes = seen.codes.filter((c) => c !== oldCode);
      if (newCode && !codes.includes(newCode)) codes.push(newCode);
      openDraft(owner, "manual", codes, [], seen.codes, version);
    }
    if (!(await showStale(owner, err))) showPileError(owner, err);
  }
}

export async function fixCard(owner, code) {
  const pick = await pickCard(state.deck, t("Replace {card} with…", { card: `${shownCode(state.deck, code)} ${cardLabel(state.deck, code)}` }), usedFlags(owner));
  if (!pick || pick === code) return;
  await replaceCard(owner, code, pick);
}

// One card for another (what goes along with it: PileDraft.replace).
export async function replaceCard(owner, code, pick) {
  pileOf(owner).replace(code, pick);
  await correction(owner, "replace", code, pick);
}

export async function addCard(owner) {
  const picks = await pickCard(state.deck, t("Add cards to {owner}'s pile", { owner }), usedFlags(owner),
    { multi: true, pictures: pictures() });
  for (const pick of picks) await correction(owner, "add", null, pick);
}

// Save the draft (or the pile shown, empty) on the version it was made on: a pile saved
// elsewhere since is never replaced unseen (409: the draft is shown as its changes).
export async function savePile(owner) {
  if (staleOf(owner)) { await applyChanges(owner); return; }
  const draft = draftOf(owner) || { codes: shownCodes(owner), detected: [], source: "manual", baseVersion: savedVersion(owner) };
  try {
    const data = await api("PUT", `${base}/rounds/${state.game.open_round}/piles`,
      { owner, codes: draft.codes, detected: draft.detected, source: draft.source, version: draft.baseVersion,
        crops: pileOf(owner).cropsOf(draft.codes), fixes: draft.fixList ? draft.fixList() : [], words: wordsOf(state.deck) });
    pileOf(owner).close();
    pileOf(owner).note = "";
    state.game = data.game;
    render();
    toast(t("{owner}'s pile saved", { owner }));
  } catch (err) {
    if (!(await showStale(owner, err))) showPileError(owner, err);
  }
}

// The enrolled decks, offered on the game page too (a game may change its deck).
export async function loadDecks() {
  const { decks } = await api("GET", "/api/decks");
  $("game-deck").append(...decks.map((d) => el("option", { value: d.name, text: `${d.name} (${d.cards} of 48 cards)` })));
}

export async function setDeck() {
  const deck = $("game-deck").value || null;
  try {
    state.game = await api("PATCH", base, { deck });
    state.deckFallback = null;
    toast(deck ? t("cards are read with deck {deck}", { deck }) : t("no deck profile"));
  } catch (err) { toast(err.message, true); }
  renderDeck();
}

export async function setLearn() {
  const learn = $("learn-deck").checked;
  try {
    state.game = await api("PATCH", base, { learn });
    toast(learn ? t("each confirmed {round} will teach deck {deck}", { round: roundWord(), deck: state.game.deck }) : t("learning off"));
  } catch (err) { toast(err.message, true); }
  renderDeck();
}

export async function confirmRound() {
  $("round-error").textContent = "";
  const unsaved = unsavedOwners();
  if (unsaved.length) { showRoundError(new Error(t("save {owners}'s pile first", { owners: unsaved.join(", ") }))); return; }
  const [missing] = missingContext();
  if (missing) {
    const { field, input } = missing;
    showRoundError(new Error(t("“{label}” is not chosen: choose the player, or {nobody}",
      { label: tr(field.label), nobody: tr(field.nobody || "nobody") })));
    input.focus();
    return;
  }
  const said = context();
  if (fieldUnsaid(state.game, said) && !smallFieldSaid()) return;
  try {
    const number = state.game.open_round;
    const data = await api("POST", `${base}/rounds/${number}/confirm`, { context: said });
    state.expected = new Map();    // the round is closed
    storeExpected();
    forgetForm(formKey(state.game.id, number));
    state.lastResult = data.round;
    state.game = data.game;
    render();
    // a reopened round confirmed again: what it changed, in it and the rounds after it
    const kept = lastRescores(data.game);
    const rescored = kept && kept.round === data.round.number ? kept.entries : [];
    showRescores(data.round.number, rescored);
    const later = rescored.filter((c) => c.round_number !== data.round.number).map((c) => c.round_number);
    const done = t("{Round} {n} confirmed:", { Round: roundWord(true), n: data.round.number }) + " " +
      (data.round.result.winner ? t("{winner} wins it", { winner: data.round.result.winner }) : t("nobody won it")) +
      (later.length ? `; ${t("{later} re-scored (what changed is listed above {round} {n}'s result)",
        { later: roundsNamed(later), round: roundWord(), n: data.round.number })}` : "");
    if (data.learned) toast(`${done}; ${t("{crops} learned for deck {deck}", { crops: count(data.learned, "card crop"), deck: data.game.deck })}`);
    else if (data.learn_note) toast(`${done}; ${tr(data.learn_note)}`);
    else toast(done);          // replaces any toast left, a refused attempt's among them
    $("last-result").scrollIntoView({ block: "nearest" });
  } catch (err) { showRoundError(new Error(formWords(err.message))); }
}

// A Hachi-Hachi month with no field given (none chosen, no table cards, none carried) is
// scored as a small field only once the players say so: true once they have; else the
// question, under Confirm, with its two answers.
function smallFieldSaid() {
  const box = $("round-error");
  if (box.dataset.smallField === String(state.game.open_round)) return true;
  const yes = el("button", { type: "button", class: "danger confirm-small" }, t("Yes: score it as a small field (×1)"));
  const no = el("button", { type: "button", class: "keep" }, t("No: I will give the field"));
  box.replaceChildren(el("span", { text: t("No field is given for this month (no table cards, none chosen): " +
    "was it a small field, no bright on the table at the deal?") + " " }), yes, " ", no);
  yes.addEventListener("click", () => { box.dataset.smallField = String(state.game.open_round); box.replaceChildren(); confirmRound(); });
  no.addEventListener("click", () => { box.replaceChildren(); const f = $("ctx-field_cards") || $("ctx-field"); if (f) f.focus(); });
  return false;
}

// What confirming reopened round `number` again changed, in it and every round after
// it (old -> new scores, winner, dealer), above its result; none: hidden.
export function showRescores(number, rescored) {
  const box = $("rescore-changes");
  box.hidden = !rescored.length;
  box.replaceChildren(...(rescored.length ? [el("p", { text: `${roundWord(true)} ${number} confirmed again: what changed` }),
    el("ul", {}, rescored.map((c) => el("li", { class: "rescore", dataset: { round: c.round_number } },
      describeRescore(c, roundWord(true)))))] : []));
}

// Reopen a confirmed round for fixes: it is the open round again until it is confirmed.
export async function reopenRound(number) {
  try {
    const data = await api("POST", `${base}/rounds/${number}/reopen`);
    state.game = data.game;
    $("round-context").dataset.round = "";
    state.lastResult = null;
    $("last-result").hidden = true;
    showRescores(number, []);
    render();
    toast(`${roundWord()} ${number} is open: fix it, then confirm it again`);
    $("round-panel").scrollIntoView({ block: "nearest" });
  } catch (err) { toast(err.message, true); }
}
