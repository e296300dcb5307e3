/** The viewer's page: a shell that the browser module fills in. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stepwise plan viewer</title>
<link rel="stylesheet" href="/assets/viewer.css">
<script type="module" src="/assets/viewer.js"></script>
</head>
<body>
<header><h1>Stepwise</h1><span class="subtitle">plan viewer</span><span id="connection" class="connection"></span></header>
<main>
<nav id="runs" aria-label="Runs"><p class="empty">Loading runs…</p></nav>
<section id="run" aria-live="polite"><p class="empty">Start a run with <code>stepwise run "&lt;task&gt;"</code>; it shows up here.</p></section>
</main>
</body>
</html>
`;
