// Keeps a dashboard page current: every data-refresh seconds, while the page is visible, it
// fetches the page's live part (?fragment=live) and swaps it in, keeping open <details>.
// Without this script the page still works, and a <noscript> meta refresh reloads it.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) return;
  var seconds = parseInt(live.getAttribute("data-refresh"), 10);
  if (!(seconds > 0)) return;
  var busy = false;

  function openDetails() {
    var open = [];
    live.querySelectorAll("details[open]").forEach(function (d) {
      var key = d.id || d.getAttribute("data-key");
      if (key) open.push(key);
    });
    return open;
  }

  function refresh() {
    if (busy || document.visibilityState !== "visible") return;
    busy = true;
    var url = new URL(window.location.href);
    url.searchParams.set("fragment", "live");
    fetch(url.toString(), { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (html) {
        if (html === null) return;
        var open = openDetails();
        live.innerHTML = html;
        open.forEach(function (key) {
          var d = document.getElementById(key) || live.querySelector('details[data-key="' + key + '"]');
          if (d) d.open = true;
        });
      })
      .catch(function () { /* offline for a moment: the next tick tries again */ })
      .then(function () { busy = false; });
  }

  window.setInterval(refresh, seconds * 1000);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });
})();
