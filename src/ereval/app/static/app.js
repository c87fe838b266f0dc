// Keyboard shortcuts and the search box of the ereval labelling app.
// Every action is a button or link carrying data-key="<key>"; pressing the key
// clicks it. j/k move the current row, x toggles it, / opens the search box,
// arrows + Enter add a search result. No inline scripts (the page's CSP forbids them).
//
// A key acts once, on the page it went down on: the auto-repeat of a held key is
// ignored, and once an action has left the page no other key acts until the next
// page is there. Answers name their item and its version, so the server refuses
// one that does not match what was shown.
(function () {
  "use strict";

  var leaving = false; // an action of this page is under way: no other key acts

  function typing(target) {
    if (!target) return false;
    var tag = target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("[data-row]"));
  }

  var current = parseInt(document.body.getAttribute("data-focus") || "0", 10) || 0;

  function setCurrent(i) {
    var all = rows();
    if (!all.length) return;
    current = Math.max(0, Math.min(all.length - 1, i));
    all.forEach(function (el, j) {
      el.classList.toggle("current", j === current);
      el.setAttribute("aria-selected", j === current ? "true" : "false");
    });
    all[current].scrollIntoView({ block: "nearest" });
    document.querySelectorAll("input[name=focus]").forEach(function (el) {
      el.value = String(current);
    });
  }

  function click(selector) {
    var el = document.querySelector(selector);
    if (el && !el.disabled) {
      el.click();
      return true;
    }
    return false;
  }

  // an action that leaves the page (a form sent, a link followed): from then on the
  // keys wait for the next page, and leaving the app's pages gives the item back
  var away = false; // the page is left for another part of the app, or closed
  document.addEventListener("submit", function () { leaving = true; }, true);
  document.addEventListener("click", function (e) {
    var a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
    if (!a) return;
    leaving = true;
    if (a.hasAttribute("data-away")) away = true;
  }, true);
  window.addEventListener("pageshow", function () { leaving = false; away = false; });

  // leaving the item's page without answering gives the item back to the queue
  var release = document.body.getAttribute("data-leave");
  var heldItem = document.body.getAttribute("data-item");
  window.addEventListener("pagehide", function () {
    if (!release || !heldItem || (leaving && !away)) return;
    var meta = document.querySelector('meta[name="csrf-token"]');
    var body = new URLSearchParams();
    body.set("csrf", meta ? meta.getAttribute("content") : "");
    body.set("item", heldItem);
    body.set("beacon", "1");
    if (navigator.sendBeacon) navigator.sendBeacon(release, body);
  });

  // ------------------------------------------------------------------ search
  var box = document.getElementById("search");
  var list = document.getElementById("search-results");
  var results = [];
  var selected = -1;
  var timer = null;
  var seq = 0;
  var inflight = null; // the request of the latest query, until it is answered

  function render() {
    if (!list) return;
    while (list.firstChild) list.removeChild(list.firstChild);
    results.forEach(function (r, i) {
      var li = document.createElement("li");
      li.className = "result" + (i === selected ? " selected" : "") + (r.warning ? " warn" : "");
      li.setAttribute("data-result", String(i));
      var id = document.createElement("code");
      id.textContent = r.record_id;
      li.appendChild(id);
      var text = document.createElement("span");
      text.textContent = " " + r.text;
      li.appendChild(text);
      var score = document.createElement("span");
      score.className = "score";
      score.textContent = " " + r.score;
      li.appendChild(score);
      if (r.note) {
        var note = document.createElement("span");
        note.className = "note";
        note.textContent = " " + r.note;
        li.appendChild(note);
      }
      li.addEventListener("click", function () {
        selected = i;
        add();
      });
      list.appendChild(li);
    });
    var status = document.getElementById("search-status");
    if (status) {
      status.textContent = box && box.value ? results.length + " found" : "";
    }
  }

  function search() {
    if (!box) return Promise.resolve();
    var q = box.value.trim();
    var mine = ++seq;
    if (!q) {
      results = [];
      selected = -1;
      render();
      return Promise.resolve();
    }
    var url = box.getAttribute("data-url") + "?q=" + encodeURIComponent(q) +
      "&item=" + encodeURIComponent(box.getAttribute("data-item") || "");
    inflight = fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (resp) { return resp.ok ? resp.json() : { results: [] }; })
      .then(function (data) {
        if (mine !== seq) return; // a newer query was typed meanwhile
        results = data.results || [];
        selected = results.length ? 0 : -1;
        inflight = null;
        render();
      });
    return inflight;
  }

  function add() {
    // the draft answer lives in the page address: adding a record is a new address
    if (selected < 0 || selected >= results.length || !box) return;
    var base = box.getAttribute("data-add");
    leaving = true;
    window.location.href =
      base + (base.indexOf("?") >= 0 ? "&" : "?") + "add=" + encodeURIComponent(results[selected].record_id);
  }

  if (box) {
    box.addEventListener("input", function () {
      if (timer) clearTimeout(timer);
      timer = setTimeout(search, 60);
    });
    box.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        if (results.length) {
          selected = (selected + (e.key === "ArrowDown" ? 1 : results.length - 1)) % results.length;
          render();
        }
        e.preventDefault();
      } else if (e.key === "Enter") {
        e.preventDefault();
        if (timer) {
          // the last keystrokes are not searched yet: search, then add
          clearTimeout(timer);
          timer = null;
          search().then(add);
        } else if (inflight) {
          inflight.then(add); // add from the answer to what was typed last
        } else {
          add();
        }
      } else if (e.key === "Escape") {
        box.blur();
        e.preventDefault();
      }
    });
  }

  // --------------------------------------------------------------- shortcuts
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && typing(e.target)) {
      e.target.blur(); // back to the shortcuts
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (e.repeat || leaving) {
      // a held key repeats, or a key comes while the page is being left: it answers
      // nothing (the item on screen when it went down has been answered already)
      e.preventDefault();
      return;
    }
    var key = e.key;
    if (key === "j" || key === "ArrowDown") {
      if (rows().length) { setCurrent(current + 1); e.preventDefault(); }
      return;
    }
    if (key === "k" || key === "ArrowUp") {
      if (rows().length) { setCurrent(current - 1); e.preventDefault(); }
      return;
    }
    if (key === "/" && box) {
      box.focus();
      box.select();
      e.preventDefault();
      return;
    }
    if (key === "x") {
      var row = rows()[current];
      var toggle = row && row.querySelector("[data-toggle]");
      if (toggle && !toggle.disabled) { toggle.click(); e.preventDefault(); }
      return;
    }
    if (key === "?") {
      var help = document.getElementById("keys");
      if (help) help.classList.toggle("open");
      return;
    }
    var target = document.querySelector('[data-focus-key="' + key + '"]');
    if (target && key.length === 1 && /[a-z]/.test(key)) {
      target.focus();
      e.preventDefault();
      return;
    }
    var esc = key === '"' || key === "\\" ? "\\" + key : key;
    if (key.length === 1 || key === "Enter") {
      if (click('[data-key="' + esc + '"]')) e.preventDefault();
    }
  });

  // The note of a review is part of its draft: kept in this tab's storage while
  // records are toggled or added (each a new page), and after a save that failed
  // (the server down or restarted); forgotten only once the server has stored the
  // answer (the next page names the saved record in data-ack).
  var notePrefix = "ereval-note:" + location.pathname + ":";
  var acked = document.body.getAttribute("data-ack");
  if (acked && window.sessionStorage) sessionStorage.removeItem(notePrefix + acked);
  var saveForm = document.getElementById("save-form");
  if (saveForm && window.sessionStorage) {
    var noteField = saveForm.querySelector("input[name=note]");
    var itemField = saveForm.querySelector("input[name=item]");
    var noteKey = notePrefix + (itemField ? itemField.value : "");
    if (noteField) {
      if (!noteField.value) noteField.value = sessionStorage.getItem(noteKey) || "";
      noteField.addEventListener("input", function () {
        sessionStorage.setItem(noteKey, noteField.value);
      });
    }
  }

  setCurrent(current);
})();
