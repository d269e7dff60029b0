// The game page's writes: pile edits (kept in the draft while there is one, else sent as a
// correction), saving a pile, confirming the round, and the game's deck settings.
import { api, count, el, toast } from "./api.js";
import { cardLabel, pickCard } from "./cards.js";
import { $, base, draftOf, openDraft, openRound, pictures, pileOf, savedVersion, shownCodes, state,
  storeExpected, unsavedOwners, usedFlags } from "./game-state.js";
import { context, formWords, missingContext, render, renderDeck, showRoundError } from "./game-render.js";

// A 409 for a stale write: show the pile as it is now and what the refused change was.
async function showStale(owner, err, change) {
  if (err.status !== 409 || !err.data || !err.data.stale) return false;
  state.game = await api("GET", base);
  render();
  const now = err.data.pile ? err.data.pile.codes.join(", ") || "empty" : "not saved";
  showRoundError(new Error(`${owner}'s pile was changed on another screen; it is now: ${now}. ` +
    `Not saved: ${change}. Check the pile, then apply it again.`));
  return true;
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
  try {
    const data = await api("POST", `${base}/rounds/${state.game.open_round}/corrections`,
      { owner, action, old_code: oldCode, new_code: newCode, version: savedVersion(owner) });
    state.game = data.game;
    render();
    toast("correction saved");
  } catch (err) {
    if (!(await showStale(owner, err, `${action} ${oldCode || ""} ${newCode || ""}`.trim()))) showRoundError(err);
  }
}

export async function fixCard(owner, code) {
  const pick = await pickCard(state.deck, `Replace ${code} ${cardLabel(state.deck, code)} with…`, usedFlags(owner));
  if (!pick || pick === code) return;
  await replaceCard(owner, code, pick);
}

// One card for another (what goes along with it: PileDraft.replace).
export async function replaceCard(owner, code, pick) {
  pileOf(owner).replace(code, pick);
  await correction(owner, "replace", code, pick);
}

export async function addCard(owner) {
  const picks = await pickCard(state.deck, `Add cards to ${owner}'s pile`, usedFlags(owner),
    { multi: true, pictures: pictures() });
  for (const pick of picks) await correction(owner, "add", null, pick);
}

export async function savePile(owner) {
  const draft = draftOf(owner) || { codes: shownCodes(owner), detected: [], source: "manual" };
  try {
    const data = await api("PUT", `${base}/rounds/${state.game.open_round}/piles`,
      { owner, codes: draft.codes, detected: draft.detected, source: draft.source, version: savedVersion(owner),
        crops: pileOf(owner).cropsOf(draft.codes), fixes: draft.fixList ? draft.fixList() : [] });
    pileOf(owner).close();
    state.game = data.game;
    render();
    toast(`${owner}'s pile saved`);
  } catch (err) {
    // the draft stays: saving it again replaces the pile shown now
    if (!(await showStale(owner, err, `your pile ${draft.codes.join(", ") || "(empty)"}`))) showRoundError(err);
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
    toast(deck ? `cards are read with deck ${deck}` : "no deck profile");
  } catch (err) { toast(err.message, true); }
  renderDeck();
}

export async function setLearn() {
  const learn = $("learn-deck").checked;
  try {
    state.game = await api("PATCH", base, { learn });
    toast(learn ? `confirmed rounds will teach deck ${state.game.deck}` : "learning off");
  } catch (err) { toast(err.message, true); }
  renderDeck();
}

export async function confirmRound() {
  $("round-error").textContent = "";
  const unsaved = unsavedOwners();
  if (unsaved.length) { showRoundError(new Error(`save ${unsaved.join(", ")}'s pile first`)); return; }
  const [missing] = missingContext();
  if (missing) {
    const { field, input } = missing;
    showRoundError(new Error(`“${field.label}” is not chosen: choose the player, or ${field.nobody || "nobody"}`));
    input.focus();
    return;
  }
  try {
    const data = await api("POST", `${base}/rounds/${state.game.open_round}/confirm`, { context: context() });
    state.expected = new Map();    // the round is closed
    storeExpected();
    state.lastResult = data.round;
    state.game = data.game;
    render();
    const done = `Round ${data.round.number} confirmed: ${data.round.result.winner ? `${data.round.result.winner} wins it` : "nobody won it"}`;
    if (data.learned) toast(`${done}; ${count(data.learned, "card crop")} learned for deck ${data.game.deck}`);
    else if (data.learn_note) toast(`${done}; ${data.learn_note}`);
    else toast(done);          // replaces any toast left, a refused attempt's among them
    $("last-result").scrollIntoView({ block: "nearest" });
  } catch (err) { showRoundError(new Error(formWords(err.message))); }
}
