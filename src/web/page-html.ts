import { STRATEGIES } from "../runs/strategies.js";
import { RUN_STATUSES } from "../stores/run-store.js";

const options = (values: readonly string[]) => values.map((value) => `<option value="${value}">${value}</option>`).join("");

/** The viewer's page: a shell that the page module (src/web/page/main.ts, built to dist/) fills in. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stepwise plan viewer</title>
<link rel="stylesheet" href="/assets/viewer.css">
<script type="module" src="/assets/web/page/main.js"></script>
</head>
<body>
<header><h1>Stepwise</h1><span class="subtitle">plan viewer</span><span id="connection" class="connection"></span></header>
<main>
<div class="side">
<form id="run-filter" role="search">
<input type="search" name="q" placeholder="Search tasks" aria-label="search tasks">
<select name="status" aria-label="status"><option value="">any status</option>${options(RUN_STATUSES)}</select>
<select name="strategy" aria-label="strategy"><option value="">any strategy</option>${options(STRATEGIES)}</select>
<select name="model" aria-label="model"><option value="">any model</option></select>
</form>
<nav id="runs" aria-label="Runs"><p class="empty">Loading runs…</p></nav>
</div>
<section id="run" aria-live="polite"><p class="empty">Loading…</p></section>
</main>
</body>
</html>
`;
