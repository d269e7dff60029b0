// The game page's state: the game as the server last sent it, and the piles' drafts (what
// this page knows of each pile beyond the server), with the questions the other modules ask.
import { t } from "./i18n.js";
import { shortLabel, shownCode } from "./cards.js";
import { checkFirst } from "./piles.js";
import { countKey, draftKey, loadCounts, loadDrafts, othersUnsaved, storeCounts, storeDrafts, storeUnsaved,
  unsavedKey } from "./drafts.js";

const root = document.getElementById("game");
export const gameId = Number(root.dataset.gameId);
export const base = `/api/games/${gameId}`;
export const $ = (id) => document.getElementById(id);

// One owner's pile on this page. `codes`, `detected` and `source` are the draft: a pile not
// saved yet (`codes` null: none), made on the saved pile `base` (its codes; [] for none) at
// `baseVersion` (0: none). `stale`: the saved pile changed since (another screen), so the
// draft is shown as its changes (`changes()`), to apply onto the pile as it now is.
// `cards` holds what this session saw of each card, per code {crop, conf, rival, faint};
// it outlives the draft: a saved pile still shows its crops, and the camera's confidence
// and runner-up until the pile is captured again or discarded. `faint`: the camera saw the
// card only faintly (it joined on weak readings): marked until the player accepts it.
class PileDraft {
  constructor() {
    this.codes = null;
    this.detected = [];
    this.source = null;
    this.base = [];
    this.baseVersion = 0;
    this.stale = false;
    this.cards = new Map();
    this.note = "";           // why the last photo or write of this pile failed (shown beside it)
    this.checked = new Set(); // codes whose "check" mark the player dismissed
    this.fixes = new Map();   // new code -> the detected code it replaced (a Fix before saving)
  }

  get open() { return this.codes !== null; }

  start(source, codes = [], detected = [], base = [], baseVersion = 0) {
    this.codes = [...codes];
    this.detected = [...detected];
    this.source = source;
    this.base = [...base];
    this.baseVersion = baseVersion;
    this.stale = false;
  }

  close() { this.codes = null; this.detected = []; this.source = null; this.base = []; this.baseVersion = 0; this.stale = false; this.fixes.clear(); }

  // A Fix on the draft: old -> pick, traced back to the detected card it started from.
  fixed(old, pick) {
    const origin = this.fixes.get(old) ?? old;
    this.fixes.delete(old);
    if (this.detected.includes(origin) && origin !== pick) this.fixes.set(pick, origin);
  }

  // [[old, new]] for the save: the fixes whose new card is still in the pile.
  fixList() {
    return [...this.fixes].filter(([pick]) => this.codes.includes(pick)).map(([pick, old]) => [old, pick]);
  }

  // What this screen changed on its base: {adds, removes} (a replace is one of each).
  changes() {
    const codes = this.codes || [];
    return { adds: codes.filter((c) => !this.base.includes(c)), removes: this.base.filter((c) => !codes.includes(c)) };
  }

  // The changes that are still to make on `codes` (the pile as it now is).
  changesOnto(codes) {
    const { adds, removes } = this.changes();
    return { adds: adds.filter((c) => !codes.includes(c)), removes: removes.filter((c) => codes.includes(c)) };
  }

  // The changes applied onto `codes` (the pile as it now is): its other cards all stay.
  appliedOnto(codes) {
    const { adds, removes } = this.changesOnto(codes);
    return [...codes.filter((c) => !removes.includes(c)), ...adds];
  }

  card(code) {
    if (!this.cards.has(code)) this.cards.set(code, {});
    return this.cards.get(code);
  }

  crop(code) { return this.cards.get(code)?.crop; }
  conf(code) { return this.cards.get(code)?.conf; }
  rival(code) { return this.cards.get(code)?.rival; }
  faint(code) { return !!this.cards.get(code)?.faint; }
  // The player accepts a card seen only faintly: its mark goes.
  accept(code) {
    const card = this.cards.get(code);
    if (card) delete card.faint;
    this.checked.add(code);
  }
  // the codes seen only faintly and not accepted yet (what checkFirst takes)
  faintCodes() { return new Set(this.table("faint").keys()); }

  // code -> confidence, code -> runner-up: the cards the camera read (what checkFirst takes)
  confidences() { return this.table("conf"); }
  rivals() { return this.table("rival"); }
  // code -> crop for the given codes (what a save and the tab's storage keep)
  cropsOf(codes) { return Object.fromEntries([...this.table("crop")].filter(([code]) => codes.includes(code))); }

  table(field) {
    const out = new Map();
    for (const [code, card] of this.cards) if (field in card) out.set(code, card[field]);
    return out;
  }

  // Drop the draft and what the camera said of the cards; the crops stay (pictures).
  forget() {
    this.close();
    this.checked.clear();
    for (const card of this.cards.values()) { delete card.conf; delete card.rival; delete card.faint; }
  }

  // One card for another: its crop goes along (it shows the physical card), the camera's
  // confidence and runner-up do not (they were about the old reading).
  replace(code, pick) {
    const crop = this.crop(code);
    if (crop) this.card(pick).crop = crop;
    const old = this.cards.get(code);
    if (old) { delete old.conf; delete old.rival; delete old.faint; }
  }
}

export const state = {
  deck: null,             // the 48 cards (cards.js), not the game's enrolled deck (game.deck)
  game: null,
  piles: new Map(),       // owner -> PileDraft: the draft (not saved yet) and this session's view of its cards
  expected: new Map(),    // owner -> how many cards the player says the pile holds
  capturing: null,        // owner being captured from the camera
  removedByHand: new Set(), // codes removed by hand during this capture: they stay out
  lastResult: null,
  deckFallback: null,     // why the game's deck profile is not used this session (the server's message)
};

// What to check first in the owner's pile (piles.js checkFirst), less the marks dismissed.
export function checksOf(owner, deck) {
  const pile = pileOf(owner);
  return checkFirst(shownCodes(owner), pile.confidences(), deck, pile.rivals(), pile.checked, pile.faintCodes(),
    elsewhereOf(owner));
}

// The codes in the round's other piles (where a card of this pile cannot also be).
export function elsewhereOf(owner) {
  return new Set(state.game.owners.filter((o) => o !== owner).flatMap((o) => shownCodes(o)));
}

export function pileOf(owner) {
  if (!state.piles.has(owner)) state.piles.set(owner, new PileDraft());
  return state.piles.get(owner);
}

// The owner's saved pile in the open round, or null.
export function savedPile(owner) {
  const rnd = openRound();
  return (rnd && rnd.piles[owner]) || null;
}

// Open a draft for the owner's pile, made on the saved pile as this page has it (or on
// `base` at `baseVersion`); the latest opened comes last (as they are listed).
export function openDraft(owner, source, codes = [], detected = [], base = null, baseVersion = null) {
  const pile = pileOf(owner);
  state.piles.delete(owner);
  state.piles.set(owner, pile);
  const saved = savedPile(owner);
  pile.start(source, codes, detected, base ?? (saved ? saved.codes : []), baseVersion ?? savedVersion(owner));
  return pile;
}

// The owner's open draft (not one made on a pile changed since), or null.
export function draftOf(owner) {
  const pile = state.piles.get(owner);
  return pile && pile.open && !pile.stale ? pile : null;
}

// The owner's draft made on a pile that changed since (shown as its changes), or null.
export function staleOf(owner) {
  const pile = state.piles.get(owner);
  return pile && pile.open && pile.stale ? pile : null;
}

// A draft's pile changed since it was made (the page knows a newer version): stale.
export function markStale() {
  for (const [owner, pile] of state.piles) {
    if (pile.open && !pile.stale && owner !== state.capturing && pile.baseVersion !== savedVersion(owner)) pile.stale = true;
  }
}

export function unsavedOwners() {
  return [...state.piles].filter(([, pile]) => pile.open).map(([owner]) => owner);
}

// What this game calls a round (the server's `round_word`: "month" in Hachi-Hachi): "round",
// or with `capital` "Round".
export function roundWord(capital = false) {
  const word = t(state.game.round_word || "round");
  return capital ? word[0].toUpperCase() + word.slice(1) : word;
}

// "round 3", "rounds 3, 4" (in Hachi-Hachi "months 3, 4").
export function roundsNamed(numbers) {
  return `${roundWord()}${numbers.length > 1 ? "s" : ""} ${numbers.join(", ")}`;
}

export function openRound() {
  const g = state.game;
  if (!g.open_round) return null;
  return g.rounds.find((r) => r.number === g.open_round) || { number: g.open_round, piles: {}, dealer: g.dealer };
}

// Every crop this session has of each code (pictures for the card picker).
export function pictures() {
  const out = new Map();
  const rnd = openRound();
  for (const owner of state.game.owners) {
    for (const [code, url] of Object.entries((rnd && rnd.piles[owner] && rnd.piles[owner].crops) || {})) out.set(code, url);
    for (const [code, url] of pileOf(owner).table("crop")) out.set(code, url);
  }
  return out;
}

// The version of the saved pile a write replaces (0: not saved yet): the server refuses
// a write made on an older one (409), so a change from another screen is never lost.
export function savedVersion(owner) {
  const rnd = openRound();
  return (rnd && rnd.piles[owner] && rnd.piles[owner].version) || 0;
}

export function shownCodes(owner) {
  const draft = draftOf(owner);
  if (draft) return draft.codes;
  const rnd = openRound();
  return rnd && rnd.piles[owner] ? rnd.piles[owner].codes : [];
}

export function otherOwnerOf(owner, code) {
  return state.game.owners.find((o) => o !== owner && shownCodes(o).includes(code)) || null;
}

export function usedFlags(owner) {
  const flags = new Map();
  for (const o of state.game.owners) {
    for (const code of shownCodes(o)) flags.set(code, o === owner ? t("in this pile") : t("in {owner}'s pile", { owner: o }));
  }
  return flags;
}

export function labelOf(code) { return shortLabel(state.deck, code); }
// The code as this game's page shows it (cards.js shownCode: hwatu numbers in a hwatu game).
export function codeOf(code) { return shownCode(state.deck, code); }

// ------------------------------------------------------------------ the tab's storage
// The open drafts go to this tab's sessionStorage on every render of the piles.
export function storePiles(round) {
  const drafts = new Map();
  for (const [owner, pile] of state.piles) {
    if (!pile.open) continue;
    const own = (table) => Object.fromEntries([...table].filter(([code]) => pile.codes.includes(code)));
    drafts.set(owner, { codes: pile.codes, detected: pile.detected, source: pile.source,
      base: pile.base, baseVersion: pile.baseVersion,
      conf: own(pile.confidences()), rivals: own(pile.rivals()),
      faint: [...pile.faintCodes()].filter((code) => pile.codes.includes(code)), crops: pile.cropsOf(pile.codes) });
  }
  storeDrafts(draftKey(gameId, round), drafts);
  storeUnsaved(unsavedKey(gameId, round), new Map([...drafts].map(([owner, d]) => [owner, d.codes.length])));
}

// owner -> cards of an unsaved pile of theirs in another tab of this browser.
export function unsavedElsewhere() {
  return state.game.open_round ? othersUnsaved(unsavedKey(gameId, state.game.open_round)) : new Map();
}

// The counts and the drafts kept in this tab for the open round -> the owners with a draft.
export function restorePiles() {
  if (!state.game.open_round) return [];
  state.expected = loadCounts(countKey(gameId, state.game.open_round), state.game.owners);
  const found = loadDrafts(draftKey(gameId, state.game.open_round), state.game.owners,
    (code) => state.deck.byCode.has(code));
  for (const [owner, { draft, crops }] of found) {
    const pile = openDraft(owner, draft.source, draft.codes, draft.detected, draft.base, draft.baseVersion);
    for (const [code, url] of crops) pile.card(code).crop = url;
    for (const [code, p] of Object.entries(draft.conf)) pile.card(code).conf = p;
    for (const [code, rival] of Object.entries(draft.rivals)) pile.card(code).rival = rival;
    for (const code of draft.faint) pile.card(code).faint = true;
  }
  markStale();                      // a pile saved elsewhere since: its draft is changes
  return [...found.keys()];
}

export function storeExpected() {
  storeCounts(countKey(gameId, state.game.open_round), state.expected);
}
