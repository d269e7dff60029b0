// The Hachi-Hachi month table: each player's card points against the par of 88, his
// teyaku and dekiyaku in kan, every payment he makes or receives (who pays whom how much,
// and why), and the month's net in kan and mon; the field and its multiplier above it.
import { t, tr } from "./i18n.js";
import { el } from "./api.js";

// mon as kan and mon: 29 -> "2 kan 5 mon", -19 -> "−1 kan 7 mon" (12 mon a kan unless
// the rules say 10); `signed`: "+" before a gain.
export function kanMon(mon, perKan = 12, signed = false) {
  const n = Math.abs(mon);
  const kan = Math.floor(n / perKan), rest = n % perKan;
  const words = [kan ? t("{n} kan", { n: kan }) : "", rest || !kan ? t("{n} mon", { n: rest }) : ""].filter(Boolean).join(" ");
  return mon < 0 ? `\u2212${words}` : (signed && mon > 0 ? `+${words}` : words);
}

export function isHachihachi(result) {
  return result.game === "hachihachi" && Object.values(result.results || {}).some((r) => r.details && r.details.field);
}

function pointsCell(d) {
  if (d.role === "sitting_out") return t("sat out");
  const diff = d.over_par;
  const where = diff > 0 ? t("{n} over {par}", { n: diff, par: d.par }) : diff < 0 ? t("{n} under {par}", { n: -diff, par: d.par })
    : t("exactly {par}", { par: d.par });
  return d.points_settled ? `${d.card_points} (${where})` : `${d.card_points} (${t("not settled")})`;
}

function paymentsList(owner, d, perKan) {
  const mine = d.payments || [];
  if (!mine.length) return "—";
  return el("ul", { class: "payments" }, mine.map((p) => {
    const out = p.payer === owner;
    return el("li", { class: out ? "pays" : "receives" },
      el("b", { text: out ? t("pays {payee} {amount}", { payee: p.payee, amount: kanMon(p.mon, perKan) })
        : t("receives {amount} from {payer}", { amount: kanMon(p.mon, perKan), payer: p.payer }) }),
      `: ${tr(p.why)}`);
  }));
}

// `after`: the game's totals after this month ({owner: mon}), for the log.
export function hachihachiTable(result, owners, after = null) {
  const any = Object.values(result.results).find((r) => r.details && r.details.field);
  const field = any.details.field;
  const perKan = any.details.mon_per_kan || 12;
  const heads = [t("Player"), t("Card points (par 88)"), t("Yaku (kan)"), t("Payments"), t("Month")];
  const rows = owners.map((owner) => {
    const r = result.results[owner] || {};
    const d = r.details || {};
    const cell = (cls, label, ...content) => el("td", { class: cls, dataset: { label } }, ...content);
    return el("tr", { dataset: { owner }, class: d.role === "sitting_out" ? "sitting-out" : "" },
      el("th", { text: owner + (result.winner === owner ? " ★" : "") }),
      cell("num card-points", heads[1], pointsCell(d)),
      cell("yaku", heads[2], (r.yaku || []).length ? (r.yaku || []).map((y) =>
        el("div", { class: "yaku-hit" }, el("b", { text: `${tr(y.label)}: ${t("{n} kan", { n: y.points })}` }))) : "—"),
      cell("payments-cell", heads[3], paymentsList(owner, d, perKan)),
      cell("num score", heads[4], `${kanMon(r.score || 0, perKan, true)}`));
  });
  return el("div", {},
    el("p", { class: "field-line" }, `${t("Field:")} `, el("b", { text: tr(field.text) }), ` (${tr(field.reason)})` +
      (field.carry ? ` · ${t("carried to next month: {field}", { field: tr(`${field.carry} field`) })}` : "")),
    el("div", { class: "table-wrap" }, el("table", { class: "result hachihachi" },
      el("thead", {}, el("tr", {}, heads.map((h) => el("th", { text: h })))),
      el("tbody", {}, rows))),
    after ? el("p", { class: "running-totals" }, `${t("Totals after this month:")} `,
      owners.map((o) => `${o} ${kanMon(after[o] ?? 0, perKan, true)}`).join(" · ")) : null);
}
