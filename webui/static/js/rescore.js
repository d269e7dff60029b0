// A reopened round confirmed again scores it and the rounds after it anew; the game's
// correction log keeps each round's result before and after ("rescore"). Pure helpers
// that read that log: what the last confirmation changed, and a round's earlier result.
import { t } from "./i18n.js";
import { signed } from "./api.js";

// What the game's last confirmation changed when it confirmed a reopened round again,
// as the server keeps it with the game (`game.rescored`): {round, entries} (its rescore
// entries in the log, by round), or null.
export function lastRescores(game) {
  const kept = game.rescored;
  if (!kept) return null;
  const ids = new Set(kept.corrections);
  return { round: kept.round, entries: (game.corrections || []).filter((c) => ids.has(c.id)) };
}

// Was round `number`'s latest rescoring its own fix (it was reopened and confirmed
// again), rather than a re-scoring because an earlier round was fixed?
export function wasFixed(corrections, number) {
  const own = (corrections || []).filter((c) => c.round_number === number && ["reopen", "rescore"].includes(c.action));
  const last = own.map((c) => c.action).lastIndexOf("rescore");
  return last > 0 && own[last - 1].action === "reopen";
}

function scoreChanges(before, after) {
  const owners = [...new Set([...Object.keys(before.scores || {}), ...Object.keys(after.scores || {})])];
  return owners.filter((o) => (before.scores || {})[o] !== (after.scores || {})[o])
    .map((o) => `${o} ${signed((before.scores || {})[o])} → ${signed((after.scores || {})[o])}`);
}

// "Round 3: Ann 20 → 40, Bob 40 → 20 · winner Bob → Ann · dealer Bob → Ann", or
// "Round 4: no change" (`word`: what the game calls a round, "Month" in Hachi-Hachi).
export function describeRescore(entry, word = "Round") {
  const before = entry.before || {}, after = entry.after || {};
  const parts = [];
  const scores = scoreChanges(before, after);
  if (scores.length) parts.push(scores.join(", "));
  for (const [field, none] of [["winner", "nobody"], ["dealer", "—"]]) {
    if ((before[field] || null) !== (after[field] || null)) {
      parts.push(`${field} ${before[field] || none} → ${after[field] || none}`);
    }
  }
  return `${word} ${entry.round_number}: ${parts.length ? parts.join(" · ") : "no change"}`;
}

// The result round `number` had before its latest rescoring changed it, or null.
export function earlierResult(corrections, number) {
  const entry = [...(corrections || [])].reverse()
    .find((c) => c.action === "rescore" && c.round_number === number);
  if (!entry || !entry.before || describeRescore(entry).endsWith(": no change")) return null;
  return entry.before;
}

// "dealer Bob · Ann 20, Bob 40 · winner Bob": a result in one line.
export function resultLine(result) {
  const scores = Object.entries(result.scores || {}).map(([o, s]) => `${o} ${signed(s)}`).join(", ");
  return t("dealer {dealer} · {scores} · winner {winner}", { dealer: result.dealer || "—", scores, winner: result.winner || t("nobody") });
}
