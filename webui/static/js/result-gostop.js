// The Go-Stop and Matgo round table: each player's points by role (광 gwang, 열끗, 띠, 피),
// the go calls, shakes and bombs, the multipliers on what he receives or pays, and each
// bak (광박, 피박, 멍박, 고박) with the reason it applies or the reason it was escaped.
// The words come from the server's one table of hwatu names (deck.hwatu, /api/cards).
import { t, tr } from "./i18n.js";
import { el, signed } from "./api.js";

const ROLE_COUNTS = [["gwang", "brights"], ["yeol", "animals"], ["tti", "ribbons"], ["pi", "junk"]];

function word(table, key, fallback = key) {
  const w = table && table[key];
  return w ? w.text : fallback;
}

// The points by role, each set (고도리 godori, 홍단 ...) a term of its own before the role
// whose points hold it: "고도리 godori 5 + 열끗 yeolkkeut 3 = 8", not "열끗 yeolkkeut 8".
function points(d, hwatu, yaku = []) {
  const parts = [];
  for (const [r] of ROLE_COUNTS) {
    const sets = yaku.filter((y) => hwatu.sets?.[y.name]?.role === r && y.points);
    parts.push(...sets.map((y) => `${word(hwatu.sets, y.name)} ${y.points}`));
    const rest = (d.points[r] || 0) - sets.reduce((n, y) => n + y.points, 0);
    if (rest) parts.push(`${word(hwatu.roles, r)} ${rest}`);
  }
  const counts = ROLE_COUNTS.map(([r, c]) => `${d.counts[c]} ${hwatu.roles[r]?.korean || r}`).join(" · ") +
    (d.bonus_junk ? ` (${t("{n} bonus junk among the 피", { n: d.bonus_junk })})` : "");
  return [el("div", { class: "role-points", text: parts.length ? `${parts.join(" + ")} = ${d.base}` : "0" }),
    el("div", { class: "small muted counts", text: counts })];
}

function calls(d, hwatu) {
  const parts = [["goes", d.goes], ["shakes", d.shakes], ["bombs", d.bombs]].filter(([, n]) => n)
    .map(([k, n]) => `${word(hwatu.form, k)} ${n}`);
  return parts.length ? parts.join(" · ") : "—";
}

// A multiplier's reason in the table's words: a bak (피박 pibak), or a call or count
// ("shake", "2 shakes", "3 goes", "meongtta") as 흔들기 heundeulgi, 2 흔들기 heundeulgi...
const PLURAL = { go: "goes", goes: "goes", shake: "shakes", shakes: "shakes", bomb: "bombs", bombs: "bombs" };

function factorWord(why, hwatu) {
  if (hwatu.baks && hwatu.baks[why]) return hwatu.baks[why].text;
  const m = /^(?:(\d+) )?([a-z-]+)$/.exec(why);
  const key = m && (PLURAL[m[2]] || m[2]);
  const w = key && hwatu.multipliers && hwatu.multipliers[key];
  return w ? (m[1] ? `${m[1]} ${w.text}` : w.text) : why;
}

// A sum line of the server's ("pays (8 + 1 go) × 2 shake × 2 gwang-bak = 36") with its
// calls, multipliers and baks in the table's words (× 2 흔들기 heundeulgi), as the table
// says them (issue 66: the sum line said "× 2 shake" in English).
export function sumWords(text, hwatu) {
  if (!hwatu) return text;
  const say = (why) => factorWord(why, hwatu);
  return text
    .replace(/× (\d+) \((\d+) ([a-z-]+)\)/g, (all, f, n, w) => `× ${f} (${say(`${n} ${w}`)})`)
    .replace(/× (\d+) ([a-z][a-z-]*)/g, (all, f, w) => (say(w) === w ? all : `× ${f} ${say(w)}`))
    .replace(/\+ (\d+) (go|goes|shakes?|gwang-bak)\b/g, (all, n, w) => `+ ${say(`${n} ${w}`)}`);
}

function factors(d, hwatu) {
  return d.factors.length ? d.factors.map((f) => `×${f.factor} ${factorWord(f.why, hwatu)}`).join(" ") : "—";
}

function baks(d, hwatu) {
  if (!d.baks.length) return "—";
  return el("ul", { class: "baks" }, d.baks.map((b) => el("li", { class: b.applies ? "bak applies" : "bak escaped" },
    el("b", { text: `${b.applies ? "✓" : `✗ ${t("escaped")}`} ${word(hwatu.baks, b.name, b.name)}` }), `: ${tr(b.reason)}`)));
}

export function gostopTable(result, owners, hwatu) {
  const heads = [t("Player"), t("Points by role"), `${t("Calls")} (${word(hwatu.form, "goes")}, ${hwatu.form.shakes?.korean || "shakes"}, ${hwatu.form.bombs?.korean || "bombs"})`,
    t("Multipliers"), t("Baks 박"), t("Round score")];
  const rows = owners.map((owner) => {
    const r = result.results[owner] || {};
    const d = r.details;
    if (!d) return el("tr", { dataset: { owner } }, el("th", { text: owner }), el("td", { colspan: 5, text: tr(r.explanation || "") }));
    const score = d.role === "winner" ? `+${r.score}` : signed(r.score);
    const cell = (cls, label, ...content) => el("td", { class: cls, dataset: { label } }, ...content);
    return el("tr", { dataset: { owner } },
      el("th", { text: owner + (result.winner === owner ? " ★" : "") }),
      cell("points", heads[1], points(d, hwatu, r.yaku || [])),
      cell("calls", heads[2], calls(d, hwatu)),
      cell("factors", heads[3], factors(d, hwatu)),
      cell("baks-cell", heads[4], baks(d, hwatu)),
      cell("num score", heads[5], score));
  });
  return el("div", { class: "table-wrap" }, el("table", { class: "result gostop" },
    el("thead", {}, el("tr", {}, heads.map((h) => el("th", { text: h })))),
    el("tbody", {}, rows)));
}
