/**
 * The console's pages as Mustache templates. Mustache escapes every `{{value}}` (HTML
 * and attribute contexts alike); no template here uses the unescaped `{{{ }}}` or `&`
 * forms (a test checks), so a webhook's field is shown as text wherever it lands.
 * Mustache interprets templates, it compiles nothing with eval or new Function, so it
 * runs on Workers. Links are built from fixed paths and `encodeURIComponent`d values.
 */

export const layout = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} · hookgate</title>
<link rel="icon" href="{{base}}/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{{base}}/assets/console.css">
{{#script}}<script src="{{base}}/assets/progress.js" defer></script>{{/script}}
</head>
<body>
<header>
<a class="brand" href="{{base}}">hookgate</a>
{{#session}}
<nav>
<a href="{{base}}">Overview</a>
<a href="{{base}}/orders">Orders</a>
<a href="{{base}}/alerts">Alerts</a>
<a href="{{base}}/campaigns">Campaigns</a>
</nav>
<form method="post" action="{{base}}/sign-out" class="inline">
<input type="hidden" name="_csrf" value="{{csrf}}">
<span class="who">{{operator}}</span>
<button type="submit">Sign out</button>
</form>
{{/session}}
</header>
<main>
{{#flash}}<p class="flash {{kind}}" role="status">{{text}}</p>{{/flash}}
<h1>{{title}}</h1>
{{> content}}
</main>
</body>
</html>
`

export const signIn = `<form method="post" action="{{base}}/sign-in" class="card">
<label>Admin token <input type="password" name="token" autocomplete="current-password" required></label>
<label>Your name (recorded with what you do) <input type="text" name="operator" maxlength="64" required></label>
<button type="submit">Sign in</button>
</form>
`

export const overview = `<section class="tiles">
{{#counts}}<a class="tile {{status}}" href="{{base}}/orders?state={{status}}"><span class="n">{{count}}</span> {{status}}</a>{{/counts}}
<div class="tile"><span class="n">{{due}}</span> due now</div>
<a class="tile" href="{{base}}/alerts"><span class="n">{{openAlerts}}</span> open alerts</a>
</section>
<section class="card">
<h2>Mailer</h2>
{{#circuit.ok}}<p class="ok">The mailer circuit is closed: sends go out.</p>{{/circuit.ok}}
{{^circuit.ok}}<p class="bad">The mailer circuit is open since {{circuit.since}} ({{circuit.code}}: {{circuit.detail}}); next probe {{circuit.nextProbeAt}}.</p>{{/circuit.ok}}
</section>
<section class="card">
<h2>Last sweep</h2>
{{#sweep}}
<p>Finished <time>{{finished}}</time> (took {{took}}).</p>
{{#report}}<dl>
<dt>Due orders found</dt><dd>{{scanned}}</dd>
<dt>Sent</dt><dd>{{sent}}</dd>
<dt>Failed</dt><dd>{{failed}}</dd>
<dt>Capped</dt><dd>{{capped}}</dd>
<dt>Held (mailer misconfigured)</dt><dd>{{held}}</dd>
<dt>Skipped (leased elsewhere)</dt><dd>{{skipped}}</dd>
<dt>Alerts attempted again</dt><dd>{{alertsAttempted}}, delivered {{alertsDelivered}}</dd>
</dl>{{/report}}
{{^report}}<p>Its report was written by a newer release; this one cannot read it.</p>{{/report}}
{{/sweep}}
{{^sweep}}<p>No sweep recorded yet.</p>{{/sweep}}
</section>
<section class="card">
<h2>Last reconciliation</h2>
{{#reconcile}}
<p>Finished <time>{{finished}}</time> (took {{took}}).</p>
{{#report}}
{{#none}}<p>No mounted provider can list its paid orders.</p>{{/none}}
{{#providers}}
<h3><bdi>{{provider}}</bdi></h3>
<dl class="run">
<dt>Read from</dt><dd><time>{{since}}</time></dd>
<dt>Seen</dt><dd>{{seen}}</dd>
<dt>Known</dt><dd>{{known}}</dd>
<dt>New (no webhook had come)</dt><dd>{{new}}</dd>
<dt>Unpaid</dt><dd>{{unpaid}}</dd>
<dt>Unfulfillable</dt><dd>{{unfulfillable}}</dd>
<dt>Unsendable (paid, not rebuildable: the owner is told)</dt><dd>{{unsendable}}</dd>
<dt>Named in this run's alert</dt><dd>{{alerted}}</dd>
<dt>Failed to store</dt><dd>{{failed}}</dd>
</dl>
{{#error}}<p class="bad">Stopped early ({{reason}}): <bdi>{{detail}}</bdi>{{#setting}} · check {{setting}}{{/setting}}{{#requestId}} · request <bdi>{{requestId}}</bdi>{{/requestId}}</p>{{/error}}
{{/providers}}
{{#skipped}}<p>Skipped <bdi>{{provider}}</bdi>: <bdi>{{reason}}</bdi></p>{{/skipped}}
{{/report}}
{{^report}}<p>Its report was written by a newer release; this one cannot read it.</p>{{/report}}
{{/reconcile}}
{{^reconcile}}<p>No reconciliation run recorded yet.</p>{{/reconcile}}
</section>
<section class="card">
<h2>Counters</h2>
<dl>
<dt>Duplicates prevented</dt><dd>{{stats.duplicatesPrevented}}</dd>
<dt>Possible duplicates</dt><dd>{{stats.possibleDuplicates}}</dd>
<dt>Leases lost</dt><dd>{{stats.leasesLost}}</dd>
</dl>
</section>
`

export const orders = `<form method="get" action="{{base}}/orders" class="filters">
<label>State <select name="state">{{#states}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/states}}</select></label>
<label>Provider <input type="text" name="provider" value="{{provider}}"></label>
<label>Order key or email <input type="search" name="q" value="{{q}}"></label>
<button type="submit">Filter</button>
</form>
{{#empty}}<p>No orders match.</p>{{/empty}}
{{^empty}}
<table>
<thead><tr><th>Order</th><th>Email</th><th>State</th><th>Attempts</th><th>Received</th></tr></thead>
<tbody>
{{#rows}}<tr class="{{status}}"><td><a href="{{href}}"><bdi>{{key}}</bdi></a></td><td><bdi>{{email}}</bdi></td><td>{{status}}</td><td>{{attempts}}</td><td>{{created}}</td></tr>{{/rows}}
</tbody>
</table>
{{/empty}}
{{#next}}<p><a class="button" href="{{next}}">Older orders</a></p>{{/next}}
`

export const order = `<section class="card">
<dl>
<dt>Order key</dt><dd><bdi>{{order.key}}</bdi></dd>
<dt>State</dt><dd class="{{order.status}}">{{order.status}}{{#order.uncertain}} (uncertain: an email may already be out){{/order.uncertain}}</dd>
<dt>Email</dt><dd><bdi>{{order.fulfilment.email}}</bdi></dd>
<dt>Product</dt><dd><bdi>{{order.fulfilment.product}}</bdi></dd>
<dt>Amount</dt><dd>{{amount}}</dd>
<dt>Provider</dt><dd><bdi>{{order.provider}}</bdi> · event <bdi>{{order.eventType}}</bdi> <bdi>{{order.eventId}}</bdi></dd>
<dt>Attempts</dt><dd>{{order.attempts}}</dd>
{{#order.lastError}}<dt>Last error</dt><dd><bdi>{{order.lastError}}</bdi></dd>{{/order.lastError}}
{{#order.messageId}}<dt>Message id</dt><dd><bdi>{{order.messageId}}</bdi></dd>{{/order.messageId}}
</dl>
{{#metadata.length}}<h2>Metadata</h2><dl>{{#metadata}}<dt><bdi>{{name}}</bdi></dt><dd><bdi>{{value}}</bdi></dd>{{/metadata}}</dl>{{/metadata.length}}
</section>
<section class="card">
<h2>Timeline</h2>
<ol class="timeline">
{{#timeline}}<li class="{{kind}}"><time>{{at}}</time> <strong>{{label}}</strong> <bdi>{{detail}}</bdi>{{#note}} <small>{{note}}</small>{{/note}}</li>{{/timeline}}
</ol>
</section>
<section class="card actions">
<h2>Actions</h2>
{{#retryable}}
<form method="post" action="{{actionBase}}/retry">
<input type="hidden" name="_csrf" value="{{csrf}}">
<button type="submit">Retry now</button>
</form>
{{/retryable}}
<form method="post" action="{{actionBase}}/send-again">
<input type="hidden" name="_csrf" value="{{csrf}}">
<label><input type="checkbox" name="confirm" value="yes" required> Send this buyer a new copy of the email (a new send under a new key: they get another email)</label>
<button type="submit">Send again</button>
</form>
</section>
`

export const alerts = `<p class="tabs"><a href="{{base}}/alerts?state=open"{{#open}} aria-current="page"{{/open}}>Open</a> <a href="{{base}}/alerts?state=resolved"{{^open}} aria-current="page"{{/open}}>Resolved</a></p>
{{^rows.length}}<p>No alerts here.</p>{{/rows.length}}
{{#rows}}
<article class="card alert">
<p><strong>{{kind}}</strong> <time>{{created}}</time>{{#orderHref}} · <a href="{{orderHref}}"><bdi>{{orderKey}}</bdi></a>{{/orderHref}}</p>
<p><bdi>{{message}}</bdi></p>
{{#resolved}}<p class="ok">Resolved {{resolvedAt}}: <bdi>{{note}}</bdi></p>{{/resolved}}
{{^resolved}}
<form method="post" action="{{resolveHref}}">
<input type="hidden" name="_csrf" value="{{csrf}}">
<label>Note <input type="text" name="note" maxlength="500" required></label>
<button type="submit">Resolve</button>
</form>
{{/resolved}}
</article>
{{/rows}}
`

export const campaigns = `{{^rows.length}}<p>No campaigns yet.</p>{{/rows.length}}
{{#rows}}
<article class="card">
<h2><a href="{{href}}"><bdi>{{id}}</bdi></a> <span class="state">{{state}}</span></h2>
{{> progress}}
</article>
{{/rows}}
`

export const progress = `<div class="progress" data-progress="{{progressHref}}">
<div class="bar" role="img" aria-label="{{sent}} sent, {{failed}} failed, {{remaining}} remaining of {{total}}">
<progress max="{{total}}" value="{{done}}">{{done}} / {{total}}</progress>
</div>
<p><span data-field="sent">{{sent}}</span> sent · <span data-field="failed">{{failed}}</span> failed · <span data-field="remaining">{{remaining}}</span> remaining · <span data-field="state">{{state}}</span></p>
</div>
`

export const campaign = `<section class="card">
<p>Subject: <bdi>{{subject}}</bdi></p>
{{> progress}}
<div class="actions">
{{#canPause}}<form method="post" action="{{actionBase}}/pause"><input type="hidden" name="_csrf" value="{{csrf}}"><button type="submit">Pause</button></form>{{/canPause}}
{{#canResume}}<form method="post" action="{{actionBase}}/resume"><input type="hidden" name="_csrf" value="{{csrf}}"><button type="submit">Resume</button></form>{{/canResume}}
</div>
</section>
{{#failedRecipients.length}}
<section class="card">
<h2>Failed recipients</h2>
<table class="failed-recipients">
<thead><tr><th>#</th><th>Email</th><th>Error</th></tr></thead>
<tbody>
{{#failedRecipients}}<tr><td>{{seq}}</td><td><bdi>{{email}}</bdi></td><td><bdi>{{error}}</bdi></td></tr>{{/failedRecipients}}
</tbody>
</table>
</section>
{{/failedRecipients.length}}
`

export const message = `<p>{{text}}</p>{{#back}}<p><a class="button" href="{{back}}">Back</a></p>{{/back}}
`
