// The live feed: new alerts arrive over server-sent events (/events) and
// are put at the top of the feed's table, without a reload. EventSource
// reconnects by itself and says the last alert it saw, so none is missed.
"use strict";
(function () {
  const feed = document.querySelector("#feed tbody");
  const live = document.getElementById("live");
  if (!feed || !window.EventSource) return;
  const money = (v) => "$" + Number(v).toFixed(2);
  const words = (s) => String(s || "").replace(/_/g, " ");
  // either is pages.go's: "6C or 9C", "6C, 8C or 9C".
  const either = (cs) => cs.length < 2 ? cs.join("") : cs.slice(0, -1).join(", ") + " or " + cs[cs.length - 1];
  const cell = (tr, text, cls) => {
    const td = tr.insertCell();
    if (cls) td.className = cls;
    td.textContent = text;
    return td;
  };
  const link = (td, text, href) => {
    td.textContent = "";
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    td.appendChild(a);
  };
  function show(a) {
    if (feed.querySelector('tr[data-seq="' + a.seq + '"]')) return;
    const tr = document.createElement("tr");
    tr.className = "alert new sev-" + a.severity;
    tr.dataset.seq = a.seq;
    tr.dataset.id = a.id;
    link(cell(tr, ""), a.received, a.url);
    cell(tr, a.table);
    cell(tr, a.round);
    cell(tr, a.seat, "num");
    cell(tr, a.bet);
    link(cell(tr, ""), words(a.kind), a.url);
    const sev = cell(tr, "");
    const span = document.createElement("span");
    span.className = "sev";
    span.textContent = a.severity;
    sev.appendChild(span);
    cell(tr, money(a.entered), "num");
    cell(tr, money(a.expected), "num");
    const cards = cell(tr, "", "cards");
    for (const c of a.cards || []) {
      const s = document.createElement("span");
      s.className = "card";
      s.textContent = c.card + " ";
      const small = document.createElement("small");
      small.textContent = Math.round(100 * c.confidence) + "%";
      s.appendChild(small);
      // A card read as two cards: the cards it may be, as the pages say.
      if (c.candidates && c.candidates.length) {
        const cand = document.createElement("small");
        cand.className = "candidates";
        cand.textContent = "(" + either(c.candidates) + ")";
        s.appendChild(document.createTextNode(" "));
        s.appendChild(cand);
      }
      cards.appendChild(s);
      cards.appendChild(document.createTextNode(" "));
    }
    cell(tr, words(a.status), "status");
    feed.insertBefore(tr, feed.firstChild);
  }
  const es = new EventSource("/events");
  es.addEventListener("open", () => { live.textContent = "live"; live.classList.add("on"); });
  es.addEventListener("error", () => { live.textContent = "reconnecting…"; live.classList.remove("on"); });
  es.addEventListener("alert", (e) => show(JSON.parse(e.data)));
})();
