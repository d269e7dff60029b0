// The 48-card deck from /api/cards, and the card picker (text and month colours only).
import { api, el } from "./api.js";

export async function loadDeck() {
  const data = await api("GET", "/api/cards");
  const byCode = new Map(data.cards.map((c) => [c.code, c]));
  const months = new Map(data.months.map((m) => [m.number, m]));
  return { cards: data.cards, months, byCode };
}

export function cardLabel(deck, code) {
  const c = deck.byCode.get(code);
  return c ? c.name : code;
}

export function colourChip(deck, code) {
  const c = deck.byCode.get(code);
  const chip = el("span", { class: "month-chip", title: c ? deck.months.get(c.month).english : "" });
  if (c) chip.style.setProperty("--month", deck.months.get(c.month).colour);
  return chip;
}

// Opens the picker dialog; resolves with a code or null. `flags` maps code -> note.
export function pickCard(deck, title, flags = new Map()) {
  const dialog = document.getElementById("picker");
  const grid = document.getElementById("picker-grid");
  document.getElementById("picker-title").textContent = title;
  grid.replaceChildren();
  return new Promise((resolve) => {
    let chosen = null;
    for (const [number, month] of deck.months) {
      const row = el("div", { class: "picker-row" },
        el("span", { class: "picker-month", text: `${String(number).padStart(2, "0")} ${month.english} ${month.japanese}` }));
      row.style.setProperty("--month", month.colour);
      for (const c of deck.cards.filter((x) => x.month === number)) {
        const note = flags.get(c.code);
        const btn = el("button", {
          type: "button", class: "pick" + (note ? " flagged" : ""), title: note || c.name,
          dataset: { code: c.code },
          onclick: () => { chosen = c.code; dialog.close("picked"); },
        }, el("b", { text: c.code }), " ", c.name.split(": ")[1], note ? el("small", { text: ` (${note})` }) : null);
        row.append(btn);
      }
      grid.append(row);
    }
    dialog.addEventListener("close", () => resolve(chosen), { once: true });
    dialog.showModal();
  });
}
