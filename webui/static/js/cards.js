// The 48 cards (the deck) from /api/cards, and the card picker (filterable by month, several
// cards at once when adding, with a crop of the card where this session has one).
// In a Korean-deck game (Go-Stop, Matgo: `useHwatu`) the months, cards and roles are shown
// with their hwatu names from the server's one table (`deck.hwatu`), in the hwatu order
// (paulownia 11, rain 12); the card codes stay the same.
import { LANG, t } from "./i18n.js";
import { api, count, el } from "./api.js";

export async function loadCards() {
  const data = await api("GET", "/api/cards");
  const byCode = new Map(data.cards.map((c) => [c.code, c]));
  const months = new Map(data.months.map((m) => [m.number, m]));
  return { cards: data.cards, months, byCode, hwatu: data.hwatu || null, korean: false };
}

// Show this deck with hwatu words: `words` "hwatu" or "japanese" as the players chose
// (a Sakura table with a Korean deck), else by the game (Go-Stop, Matgo: hwatu).
export function useHwatu(deck, game, words = null) {
  deck.korean = !!deck.hwatu && (words ? words === "hwatu" : deck.hwatu.games.includes(game));
}

// The words this deck is shown with ("hwatu" or "japanese"): the Card names setting, and
// what a pile write sends so that a refusal names its card the same way.
export function wordsOf(deck) {
  return deck.korean ? "hwatu" : "japanese";
}

// The month numbers in the order shown: 1..12, or hwatu's 1..10, paulownia, rain.
export function monthOrder(deck) {
  return deck.korean ? deck.hwatu.order : [...deck.months.keys()];
}

// "04 Wisteria 藤", or "12 비 bi" for the willow in a hwatu game.
export function monthLabel(deck, number, { japanese = false } = {}) {
  if (deck.korean) {
    const m = deck.hwatu.months[String(number)];
    return `${String(m.number).padStart(2, "0")} ${m.text}`;
  }
  const m = deck.months.get(number);
  if (LANG === "ja") return `${String(number).padStart(2, "0")} ${m.japanese}`;
  if (LANG === "ko" && deck.hwatu) return `${String(number).padStart(2, "0")} ${deck.hwatu.months[String(number)].korean}`;
  return `${String(number).padStart(2, "0")} ${m.english}${japanese ? ` ${m.japanese}` : ""}`;
}

// The code as the page shows it: in a hwatu game with the hwatu month number (the rain
// man 11-1 is 12-1, the phoenix 12-1 is 11-1), so a card's code and its month's row agree;
// the code inside (data-code, the API) stays the same.
export function shownCode(deck, code) {
  const c = deck.byCode.get(code);
  if (!deck.korean || !c) return code;
  return `${String(deck.hwatu.months[String(c.month)].number).padStart(2, "0")}${code.slice(2)}`;
}

// "Wisteria: chaff", or "흑싸리 피 heukssari pi" in a hwatu game.
export function cardLabel(deck, code) {
  const c = deck.byCode.get(code);
  if (!c) return code;
  if (deck.korean) return deck.hwatu.cards[code].text;
  return localName(deck, c) || c.name;
}

// A card's name in the page's language where the card table has it (Japanese: 松に鶴;
// Korean: its hwatu name 송학 광), else null (English: the table's "Pine: crane").
function localName(deck, c) {
  if (LANG === "ja") return c.japanese;
  if (LANG === "ko" && deck.hwatu) return deck.hwatu.cards[c.code].korean;
  return null;
}

// The card's own name without its month: "chaff", or "흑싸리 피" in a hwatu game.
export function shortLabel(deck, code) {
  const c = deck.byCode.get(code);
  if (!c) return code;
  return deck.korean ? deck.hwatu.cards[code].korean : localName(deck, c) || c.name.split(": ")[1] || code;
}

// What the picker writes beside a code in its month's row: "chaff"; in a hwatu game the
// role ("피 pi") or the card's own name ("비쌍피 bi-ssangpi").
function pickLabel(deck, code) {
  if (!deck.korean) return shortLabel(deck, code);
  const w = deck.hwatu.cards[code];
  return w.named ? w.text : deck.hwatu.roles[w.role].text;
}

// The card's role in a hwatu game (광, 열끗, 띠, 피, 쌍피), or null.
export function roleOf(deck, code) {
  if (!deck.korean || !deck.byCode.has(code)) return null;
  return deck.hwatu.roles[deck.hwatu.cards[code].role];
}

export function colourChip(deck, code) {
  const c = deck.byCode.get(code);
  const chip = el("span", { class: "month-chip", title: c ? monthLabel(deck, c.month) : "" });
  if (c) chip.style.setProperty("--month", deck.months.get(c.month).colour);
  return chip;
}

// Opens the picker dialog. Single: resolves with a code or null. With `multi`, clicks
// toggle cards and the Add button resolves with the chosen codes ([] if cancelled).
// `flags` maps code -> note; `pictures` maps code -> an image URL (a crop seen this session).
export function pickCard(deck, title, flags = new Map(), { multi = false, pictures = new Map() } = {}) {
  const dialog = document.getElementById("picker");
  const grid = document.getElementById("picker-grid");
  const monthSel = document.getElementById("picker-month");
  const addBtn = document.getElementById("picker-add");
  const chosenText = document.getElementById("picker-chosen");
  document.getElementById("picker-title").textContent = title;
  if (monthSel.options.length <= 1 || monthSel.dataset.korean !== String(deck.korean)) {
    monthSel.replaceChildren(el("option", { value: "", text: t("all") }),
      ...monthOrder(deck).map((number) => el("option", { value: number, text: monthLabel(deck, number) })));
    monthSel.dataset.korean = String(deck.korean);
  }
  monthSel.value = "";
  addBtn.hidden = !multi;
  grid.replaceChildren();
  const chosen = [];
  const showChosen = () => {
    addBtn.textContent = chosen.length ? t("Add {cards}", { cards: count(chosen.length, "card") }) : t("Add");
    addBtn.disabled = !chosen.length;
    chosenText.textContent = chosen.map((code) => shownCode(deck, code)).join(" ");
  };
  showChosen();
  const rows = [];
  for (const number of monthOrder(deck)) {
    const month = deck.months.get(number);
    const row = el("div", { class: "picker-row", dataset: { month: number } },
      el("span", { class: "picker-month", text: monthLabel(deck, number, { japanese: true }) }));
    row.style.setProperty("--month", month.colour);
    for (const c of deck.cards.filter((x) => x.month === number)) {
      const note = flags.get(c.code);
      const pic = pictures.get(c.code);
      const btn = el("button", {
        type: "button", class: "pick" + (note ? " flagged" : ""),
        title: `${shownCode(deck, c.code)} ${cardLabel(deck, c.code)}${note ? ` (${note})` : ""}`,
        dataset: { code: c.code }, "aria-pressed": multi ? "false" : null,
        onclick: () => {
          if (!multi) { chosen.push(c.code); dialog.close("picked"); return; }
          const at = chosen.indexOf(c.code);
          if (at >= 0) chosen.splice(at, 1); else chosen.push(c.code);
          btn.setAttribute("aria-pressed", String(at < 0));
          showChosen();
        },
      }, pic ? el("img", { class: "pick-pic", src: pic, alt: "" }) : null,
      el("b", { text: shownCode(deck, c.code) }), " ", pickLabel(deck, c.code),
      note ? el("small", { text: ` (${note})` }) : null);
      row.append(btn);
    }
    rows.push(row);
    grid.append(row);
  }
  monthSel.onchange = () => {
    for (const row of rows) row.hidden = !!monthSel.value && row.dataset.month !== monthSel.value;
  };
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (multi) resolve(dialog.returnValue === "add" ? [...chosen] : []);
      else resolve(dialog.returnValue === "picked" ? chosen[0] : null);
    }, { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}
