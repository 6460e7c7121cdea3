// hitl web inbox: live countdowns, in-place answers, live updates from
// the page's event stream, and opt-in browser notifications. Everything
// agents wrote is set as text (textContent), never as markup. Without this
// script every form still works.
(function () {
  "use strict";
  var body = document.body;
  var page = body.dataset.page;
  var runID = body.dataset.run;
  var baseTitle = body.dataset.title || document.title;

  function countdowns() {
    var now = Date.now();
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      var left = Math.round((Date.parse(el.dataset.deadline) - now) / 1000);
      if (left <= 0) {
        el.textContent = "overdue";
        el.classList.add("overdue");
        return;
      }
      var h = Math.floor(left / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      el.textContent = "due in " + (h ? h + "h " : "") + (h || m ? m + "m " : "") + s + "s";
    });
  }

  function waiting() {
    return document.querySelectorAll(".q[data-pending]").length;
  }

  function title() {
    var n = waiting();
    document.title = (n ? "(" + n + ") " : "") + baseTitle;
  }

  function say(msg) {
    var live = document.getElementById("live");
    live.textContent = msg;
    clearTimeout(say.t);
    say.t = setTimeout(function () { live.textContent = ""; }, 8000);
  }

  // settle marks a question's card as no longer waiting, saying why.
  function settle(id, msg) {
    var card = document.getElementById("q-" + id);
    if (!card || !card.hasAttribute("data-pending")) return;
    card.removeAttribute("data-pending");
    card.classList.add("settled");
    card.querySelectorAll("form, .select").forEach(function (f) { f.remove(); });
    var p = document.createElement("p");
    p.className = "notice";
    p.setAttribute("role", "status");
    p.textContent = msg;
    card.appendChild(p);
    title();
  }

  // refresh reloads one section of the page from the server.
  // refresh replaces the elements the selectors name with the page's
  // fresh ones, read once; an element whose markup did not change is kept
  // (with what the person is typing in it).
  function refresh() {
    var sels = Array.prototype.slice.call(arguments);
    fetch(location.href, { credentials: "same-origin" }).then(function (r) { return r.text(); }).then(function (html) {
      var doc = new DOMParser().parseFromString(html, "text/html");
      sels.forEach(function (sel) {
        var fresh = doc.querySelector(sel), cur = document.querySelector(sel);
        if (fresh && cur && fresh.outerHTML !== cur.outerHTML) cur.replaceWith(document.adoptNode(fresh));
      });
      countdowns();
      title();
    });
  }

  function submit(ev) {
    var form = ev.target;
    if (!form.hasAttribute("data-fetch")) return;
    ev.preventDefault();
    var data = new FormData(form, ev.submitter);
    var out = form.querySelector(".result") || (form.closest(".answer") || form).querySelector(".result");
    fetch(form.action, { method: "POST", body: new URLSearchParams(data), credentials: "same-origin", headers: { "X-Hitl-Fetch": "1" } })
      .then(function (r) { return r.json(); })
      .then(function (res) {
        if (res.messages) { // a steering request: received, then done or refused
          var log = document.getElementById("control-log");
          log.hidden = false;
          log.textContent = res.messages.map(steerLine).join("\n");
          refresh("#run-state", "#steer");
          return;
        }
        if (res.results) { // a batch: one line per question
          out.textContent = res.results.map(function (x) { return x.questionId + ": " + x.message; }).join(" ");
          res.results.forEach(function (x) { if (x.ok && x.settled) settle(x.questionId, x.message); });
          return;
        }
        if (res.ok && res.settled) {
          settle(res.questionId, res.message);
        } else if (out) {
          out.textContent = res.message;
        }
        if (res.ok) say(res.message);
      })
      .catch(function () { if (out) out.textContent = "The service could not be reached: try again."; });
  }

  // steerLine is a steering request's answer in plain words (web/render.go's
  // steerLine): received, then done or refused with why.
  function steerLine(m) {
    var p = m.payload || {};
    if (m.type !== "RESULT") return "Received: " + m.command;
    if (p.status === "failure") return "Refused (" + p.code + "): " + (p.message || "");
    return "Done: " + (p.message || "");
  }

  // agentSaid is what the agent reported, in plain words: it checked in,
  // stopped (and why) or finished.
  function agentSaid(s) {
    var why = s.reason ? " (" + s.reason.toLowerCase().replace(/_/g, " ") + ")" : "";
    if (s.event === "ABORT") return "the agent stopped" + why;
    if (s.event === "DONE") return "the agent finished" + why;
    return "the agent checked in" + why;
  }

  function notify(text) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    try { new Notification("hitl: a question waits on you", { body: text, tag: "hitl" }); } catch (e) { /* not allowed here */ }
  }

  function stream() {
    var es = new EventSource("/events");
    es.onopen = function () { body.dataset.live = "1"; };
    es.onerror = function () { delete body.dataset.live; };
    es.onmessage = function (m) {
      var ev;
      try { ev = JSON.parse(m.data); } catch (e) { return; }
      switch (ev.type) {
        case "question_answered":
        case "question_cancelled":
        case "question_timeout":
          settle(ev.questionId, ev.message);
          break;
        case "question_asked":
        case "question_reopened":
          if (ev.inbox) {
            notify(ev.question);
            if (page === "inbox") refresh("#queue");
          }
          break;
        case "question_approval":
          say(ev.message);
          break;
      }
      if (page === "run" && ev.jobId === runID && (ev.type === "control" || ev.type === "loop" || ev.type.indexOf("question") === 0)) {
        var li = document.createElement("li");
        var what = ev.control ? steerLine(ev.control)
          : ev.state ? agentSaid(ev.state)
          : ev.type.replace(/_/g, " ") + (ev.questionId ? " " + ev.questionId : "");
        li.textContent = (ev.at || "") + " " + (ev.by || "") + " " + what;
        var activity = document.getElementById("activity");
        if (activity) activity.appendChild(li);
        refresh("#run-state", "#steer");
      }
    };
  }

  function notifications() {
    var btn = document.getElementById("notify");
    if (!btn || !("Notification" in window) || Notification.permission !== "default") return;
    btn.hidden = false;
    btn.addEventListener("click", function () {
      Notification.requestPermission().then(function () { btn.hidden = true; });
    });
  }

  // The inbox by keyboard (listed on the page, #keys): j / k move between
  // the questions waiting, o opens one, a approves it, d opens it at the
  // deny reason, r at the reply, x selects it for a batch. Keys typed into
  // a field are the field's.
  var current = -1;
  function rows() {
    return Array.prototype.slice.call(document.querySelectorAll("#queue .q[data-pending]"));
  }
  function move(i) {
    var r = rows();
    if (!r.length) return null;
    current = Math.max(0, Math.min(i, r.length - 1));
    r.forEach(function (x) { x.classList.remove("current"); });
    r[current].classList.add("current");
    r[current].focus();
    return r[current];
  }
  // row is the current row: when it was settled, the one that took its
  // place (as a mail client moves on after archiving).
  function row() {
    var r = rows();
    if (!r.length) return null;
    var q = r[current];
    if (!q || !q.classList.contains("current")) q = move(current < 0 ? 0 : current);
    return q;
  }
  // openAt opens a row's card and puts the cursor in one of its fields.
  function openAt(q, field) {
    var d = q.querySelector("details.full");
    if (d) d.open = true;
    var f = q.querySelector(field);
    if (f) f.focus();
  }
  function keys(ev) {
    if (page !== "inbox" || ev.metaKey || ev.ctrlKey || ev.altKey) return;
    if (ev.target.closest && ev.target.closest("input, textarea, select, [contenteditable]")) return;
    var q;
    switch (ev.key) {
      case "j": move(current + 1); break;
      case "k": move(current - 1); break;
      case "o":
        q = row();
        if (q) { var d = q.querySelector("details.full"); if (d) d.open = !d.open; else location.href = "/q/" + q.dataset.id; }
        break;
      case "a":
        q = row();
        var b = q && q.querySelector('.quick button[value="approve"]');
        if (b) b.click();
        break;
      case "d": q = row(); if (q) openAt(q, 'input[name="reason"]'); break;
      case "r": q = row(); if (q) openAt(q, 'input[name="reply"], textarea[name="value"], input[name="value"]'); break;
      case "x":
        q = row();
        var c = q && q.querySelector('input[name="id"]');
        if (c) c.checked = !c.checked;
        break;
      default: return;
    }
    ev.preventDefault();
  }
  document.addEventListener("keydown", keys);
  document.addEventListener("click", function (ev) {
    var t = ev.target;
    if (t.id === "select-all") {
      document.querySelectorAll('#queue .q[data-pending] input[name="id"]').forEach(function (c) { c.checked = t.checked; });
    } else if (t.dataset && t.dataset.open === "reason") {
      openAt(t.closest(".q"), 'input[name="reason"]');
    }
  });

  document.addEventListener("submit", submit);
  countdowns();
  setInterval(countdowns, 1000);
  title();
  notifications();
  if (page !== "login" && page !== "error" && page !== "result") stream();
})();
