// Pure helpers for a pile on the page: following the camera's pile as its tracks change
// their minds, and which cards a player should check first.
import { t } from "./i18n.js";
import { shownCode } from "./cards.js";
import { UNSURE } from "./stability.js";

// The pile's codes after the camera's pile went from `prev` to `now`: a code that left is
// replaced in place by one that arrived (one card changed its reading), else removed;
// arrivals are appended. Codes removed by hand during the capture stay out.
export function followCamera(codes, prev, now, removedByHand = new Set()) {
  const gone = prev.filter((c) => !now.includes(c));
  const added = now.filter((c) => !prev.includes(c) && !removedByHand.has(c));
  const out = [...codes];
  for (const c of gone) {
    const at = out.indexOf(c);
    if (at < 0) continue;
    const repl = added.find((a) => !out.includes(a));
    if (repl !== undefined) out[at] = repl; else out.splice(at, 1);
  }
  for (const c of added) if (!out.includes(c)) out.push(c);
  return out;
}

export const FAINT = t("seen only faintly — tap to accept");

// The bright a camera may have read as this card: a ribbon's month's bright (the curtain
// 03-1 read surely as the poetry ribbon 03-2, issue 66), when that bright is in no pile
// (`elsewhere`: the codes of the round's other piles) nor in this one; else null.
export function brightTwin(deck, code, codes, elsewhere = new Set()) {
  const card = deck.byCode.get(code);
  if (!card || card.kind !== "ribbon") return null;
  const bright = deck.cards.find((c) => c.month === card.month && c.kind === "bright");
  return bright && !codes.includes(bright.code) && !elsewhere.has(bright.code) ? bright.code : null;
}

// code -> list of reasons to check it: seen only faintly (`faint`: the camera's tracker
// let it join on weak readings alone), unsure (read with under UNSURE confidence: how
// often such a read is right; a track's is its code's mean over its frames), read
// another way too (`rivals`: code -> runner-up reading), a ribbon of a month whose
// chaff is in the pile too (misreads lean to ribbons), or a ribbon the camera read whose
// month's bright is in no pile (`elsewhere`: brightTwin).
export function checkFirst(codes, conf, deck, rivals = new Map(), dismissed = new Set(), faint = new Set(),
  elsewhere = new Set()) {
  const out = new Map();
  const add = (code, why) => out.set(code, [...(out.get(code) || []), why]);
  for (const code of codes) {
    if (faint.has(code)) add(code, FAINT);
    const p = conf.get(code);
    if (p !== undefined && p < UNSURE) add(code, t("unsure ({p}%)", { p: Math.round(p * 100) }));
    if (rivals.get(code)) add(code, t("also read as {code}", { code: shownCode(deck, rivals.get(code)) }));
    const card = deck.byCode.get(code);
    // a card the camera read (its confidence known): one picked by hand is the player's word
    if (card && card.kind === "ribbon" && conf.has(code)) {
      // a plain chaff (K 3 or 4) of the month; the willow's 11-4 is the lightning, a
      // card of its own that lies beside the willow ribbon in many a pile
      const twin = codes.find((o) => o !== code && deck.byCode.get(o)?.month === card.month &&
        deck.byCode.get(o)?.kind === "chaff" && card.month !== 11 && /-[34]$/.test(o));
      if (twin) add(code, t("ribbon beside {code}, a chaff of its month: is it a chaff too?", { code: shownCode(deck, twin) }));
      const bright = brightTwin(deck, code, codes, elsewhere);
      if (bright) add(code, t("a ribbon whose month's bright {code} is in no pile: is it the bright?", { code: shownCode(deck, bright) }));
    }
  }
  for (const code of dismissed) out.delete(code);     // the player checked it
  return out;
}

// "12 found of 14 — 2 still hidden: …" for a pile whose size the player entered. The
// `marked` cards (to check) may be misread: such a card is there, but its true code is
// missing from the pile as surely as a hidden card's, so they count among the missing.
export function countNote(found, expected, marked = 0) {
  if (!Number.isInteger(expected) || expected <= 0) return "";
  const head = `${found} found of ${expected}`;
  if (found > expected) return `${head} — ${found - expected} too many: remove the wrong ones`;
  const hidden = expected - found;
  const doubt = marked === 1 ? "1 marked card may be misread" : `${marked} marked cards may be misread`;
  if (!hidden) return marked ? `${head} — ${doubt}: check ${marked === 1 ? "it" : "them"}` : `${head} — all there`;
  const missing = `${hidden} still hidden: spread the pile or add ${hidden === 1 ? "it" : "them"}`;
  return marked ? `${head} — ${missing}; ${doubt}: up to ${hidden + marked} missing` : `${head} — ${missing}`;
}
