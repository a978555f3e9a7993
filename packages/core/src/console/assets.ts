/**
 * The console's two static files, served from the same origin so the
 * Content-Security-Policy can allow `'self'` and nothing inline.
 */

export const css = `*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2330;background:#f5f6f8}
header{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;padding:.6rem 1rem;background:#1d2330;color:#fff}
header a{color:#fff;text-decoration:none}
.brand{font-weight:700;margin-right:.5rem}
nav{display:flex;flex-wrap:wrap;gap:.75rem;flex:1}
.inline{display:flex;gap:.5rem;align-items:center;margin:0}
.who{opacity:.8}
main{max-width:960px;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.5rem 0 1rem}
h2{font-size:1.1rem;margin:0 0 .5rem}
dl+h2{margin-top:1rem}
.card{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:1rem;margin-bottom:1rem;overflow-wrap:anywhere}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(120px,1fr));gap:.75rem;margin-bottom:1rem}
.tile{display:block;background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:.75rem;color:inherit;text-decoration:none}
.tile .n{display:block;font-size:1.6rem;font-weight:700}
.capped .n,.failed .n,.bad{color:#b3261e}
.ok{color:#1e7b34}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #dde1e7}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #eef0f3;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{font-weight:600}
dd{margin:0}
.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;margin-bottom:1rem}
label{display:flex;flex-direction:column;gap:.2rem;font-size:.9rem}
label:has(input[type=checkbox]){flex-direction:row;align-items:center}
input,select,button,.button{font:inherit;padding:.4rem .6rem;border:1px solid #b9c0cb;border-radius:4px;background:#fff;color:inherit}
button,.button{background:#2f5bd3;border-color:#2f5bd3;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
header button{background:transparent;border-color:#fff}
form.card{display:flex;flex-direction:column;gap:.75rem;max-width:420px}
.actions{display:flex;flex-direction:column;gap:.75rem}
.actions form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.timeline{margin:0;padding-left:1.2rem}
.timeline li{margin-bottom:.35rem}
.flash{padding:.6rem .8rem;border-radius:4px;background:#e8f0fe}
.flash.error{background:#fce8e6}
progress{width:100%;height:1rem}
.tabs a{margin-right:1rem}
.tabs a[aria-current]{font-weight:700}
.state{font-size:.85rem;font-weight:400;color:#5a6372}
@media (max-width:600px){nav{order:3;flex-basis:100%}thead{display:none}tr{display:block;border-bottom:1px solid #dde1e7}td{display:block;border:0;padding:.2rem .6rem}}
`

/** The tab's icon (without one a browser asks for /favicon.ico, outside the console). */
export const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2330"/><path d="M4 4v8M12 4v8M4 8h8" stroke="#fff" stroke-width="2"/></svg>`

/** Progressive enhancement: a campaign's progress refreshes itself; without it the page reads the same, reloaded. */
export const progressScript = `"use strict";
(function () {
  var boxes = document.querySelectorAll("[data-progress]");
  boxes.forEach(function (box) {
    var url = box.getAttribute("data-progress");
    function refresh() {
      fetch(url, { credentials: "same-origin", headers: { accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (status) {
          if (status === null) return;
          ["sent", "failed", "remaining", "state"].forEach(function (field) {
            var el = box.querySelector('[data-field="' + field + '"]');
            if (el) el.textContent = String(status[field]);
          });
          var bar = box.querySelector("progress");
          if (bar) { bar.max = status.total; bar.value = status.sent + status.failed; }
          if (status.state === "running" || status.state === "sending") setTimeout(refresh, 1000);
          else setTimeout(refresh, 3000);
        })
        .catch(function () { setTimeout(refresh, 5000); });
    }
    setTimeout(refresh, 1000);
  });
})();
`
