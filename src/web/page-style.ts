/** The viewer's stylesheet: plain CSS, light and dark. */
export const PAGE_CSS = `
:root { color-scheme: light dark; --bg: #fafafa; --fg: #1d1f21; --muted: #6b7280; --line: #d9dce1; --card: #fff;
  --todo: #9ca3af; --progress: #2563eb; --done: #16a34a; --abandoned: #a16207; --failed: #dc2626; --wait: #9333ea; }
@media (prefers-color-scheme: dark) { :root { --bg: #16181c; --fg: #e5e7eb; --muted: #9ca3af; --line: #2f333a; --card: #1f2228; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header { display: flex; align-items: baseline; gap: .6rem; padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.1rem; margin: 0; }
h2 { font-size: 1rem; margin: 0 0 .4rem; }
h3 { font-size: .9rem; margin: 1rem 0 .4rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.subtitle, .connection, .meta, .empty { color: var(--muted); }
.connection { margin-left: auto; font-size: .8rem; }
main { display: grid; grid-template-columns: minmax(200px, 280px) 1fr; min-height: calc(100vh - 45px); }
.side { border-right: 1px solid var(--line); padding: .5rem; overflow-y: auto; }
#run-filter { display: grid; grid-template-columns: 1fr 1fr; gap: .3rem; margin-bottom: .5rem; }
#run-filter input { grid-column: 1 / -1; }
#run-filter input, #run-filter select { font: inherit; font-size: .8rem; padding: .25rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--card); color: inherit; min-width: 0; }
nav button { display: block; width: 100%; text-align: left; padding: .45rem .5rem; margin-bottom: .25rem; border: 1px solid transparent;
  border-radius: 6px; background: none; color: inherit; font: inherit; cursor: pointer; }
nav button:hover { background: var(--card); border-color: var(--line); }
nav button[aria-current="true"] { background: var(--card); border-color: var(--progress); }
nav .task { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
nav .figures { display: block; font-size: .8rem; } nav .figures code { font-size: .78rem; }
#run { padding: 1rem 1.4rem; overflow-x: auto; min-width: 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; margin-bottom: .8rem; }
.badge { display: inline-block; font-size: .72rem; padding: .05rem .45rem; border-radius: 999px; color: #fff; background: var(--todo); }
.badge.running { background: var(--progress); } .badge.final { background: var(--done); }
.badge.failed, .badge.aborted { background: var(--failed); } .badge.awaiting-user { background: var(--wait); }
.badge.max-steps, .badge.no-answer { background: var(--abandoned); }
ul.checklist { list-style: none; padding: 0; margin: 0; }
ul.checklist li { padding: .2rem 0; display: flex; gap: .5rem; align-items: baseline; }
.mark { width: 1.2rem; text-align: center; font-weight: bold; }
[data-status="todo"] .mark { color: var(--todo); } [data-status="in_progress"] .mark { color: var(--progress); }
[data-status="done"] .mark { color: var(--done); } [data-status="abandoned"] .mark { color: var(--abandoned); }
[data-status="failed"] .mark { color: var(--failed); }
[data-status="done"] .label { color: var(--muted); } [data-status="abandoned"] .label { text-decoration: line-through; }
.status-text, .detail, .owner { color: var(--muted); font-size: .8rem; }
svg.graph { display: block; max-width: 100%; height: auto; margin-top: .4rem; }
svg.graph rect { fill: var(--card); stroke: var(--todo); stroke-width: 1.5; }
svg.graph g[data-status="in_progress"] rect { stroke: var(--progress); stroke-width: 2.5; }
svg.graph g[data-status="done"] rect { stroke: var(--done); } svg.graph g[data-status="failed"] rect { stroke: var(--failed); }
svg.graph g[data-status="abandoned"] rect { stroke: var(--abandoned); stroke-dasharray: 4 3; }
svg.graph text { fill: var(--fg); font-size: 12px; } svg.graph path { fill: none; stroke: var(--muted); stroke-width: 1.3; }
svg.graph marker path { fill: var(--muted); stroke: none; }
ul.tools { font: 12px/1.4 ui-monospace, monospace; padding: 0; margin: 0; list-style: none; }
ul.tools > details { padding: .15rem 0; border-bottom: 1px dashed var(--line); overflow-wrap: anywhere; }
ul.tools summary { cursor: pointer; } ul.tools .error > summary { color: var(--failed); } ul.tools .running > summary { color: var(--progress); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg); padding: .5rem; border-radius: 6px; max-height: 28rem; overflow: auto;
  font: 12px/1.4 ui-monospace, monospace; margin: .2rem 0; }
pre.error { color: var(--failed); }
.diff .add { color: var(--done); background: color-mix(in srgb, var(--done) 12%, transparent); display: block; }
.diff .del { color: var(--failed); background: color-mix(in srgb, var(--failed) 12%, transparent); display: block; }
.diff .same { display: block; color: var(--muted); }
.diff-title { font-weight: 600; margin: .6rem 0 .2rem; }
.totals { margin-top: .2rem; }
.legend { font-size: .8rem; color: var(--muted); margin-bottom: .3rem; }
.legend .key { display: inline-block; width: .9rem; height: .6rem; border-radius: 2px; margin-left: .5rem; vertical-align: middle; }
.key.model, svg.timeline rect.model { fill: var(--progress); background: var(--progress); }
.key.tool, svg.timeline rect.tool { fill: var(--done); background: var(--done); }
.key.error, svg.timeline rect.error { fill: var(--failed); background: var(--failed); }
svg.timeline, svg.chart { display: block; max-width: 100%; height: auto; }
svg.timeline rect { cursor: pointer; } svg.timeline rect.running, .key.running { opacity: .55; } .key.running { background: var(--progress); }
.key.interrupted, svg.timeline rect.interrupted { fill: var(--todo); background: var(--todo); stroke: var(--failed); stroke-dasharray: 3 2; outline: 1px dashed var(--failed); }
svg.timeline rect:hover, svg.chart rect:hover { stroke: var(--fg); stroke-width: 1; }
svg.timeline text, svg.chart text { fill: var(--muted); font-size: 11px; }
svg.timeline .row-label { fill: var(--fg); }
svg.timeline line { stroke: var(--line); stroke-width: 1; }
svg.chart rect.size-bar { fill: var(--progress); opacity: .8; cursor: pointer; }
svg.chart .fold-mark line { stroke: var(--abandoned); stroke-width: 1.5; stroke-dasharray: 4 3; }
.scroll { max-height: 18rem; overflow: auto; }
table.calls { border-collapse: collapse; width: 100%; font-size: .82rem; }
table.calls th { text-align: left; color: var(--muted); font-weight: normal; position: sticky; top: 0; background: var(--card); }
table.calls td, table.calls th { padding: .15rem .5rem; border-bottom: 1px solid var(--line); } .num { text-align: right; }
button.link { background: none; border: none; color: var(--progress); cursor: pointer; font: inherit; padding: 0; }
button.close { float: right; font-size: .8rem; }
ol.messages { padding-left: 1.6rem; } ul.messages.answer { list-style: none; padding-left: 0; }
li.message { margin: .3rem 0; } li.message pre { max-height: 12rem; } li.message .role { font-size: .75rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
li.message.tail pre { border-left: 3px solid var(--wait); background: color-mix(in srgb, var(--wait) 8%, var(--bg)); }
.tail-note { color: var(--wait); font-size: .8rem; font-weight: 600; margin: .6rem 0 .2rem; }
ul.tree { list-style: none; padding: 0; margin: 0; } ul.tree li { padding: .1rem 0; }
ol.revisions { padding-left: 1.6rem; max-height: 20rem; overflow: auto; } ol.revisions ul { padding-left: 1rem; margin: .1rem 0 .4rem; }
.pending { border-color: var(--wait); }
.answer { white-space: pre-wrap; overflow-wrap: anywhere; }
.pending textarea { width: 100%; min-height: 6rem; font: 12px ui-monospace, monospace; }
.pending .actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-top: .4rem; }
.pending input[type="text"] { flex: 1; min-width: 12rem; padding: .3rem; }
button.action { padding: .3rem .8rem; border-radius: 6px; border: 1px solid var(--line); background: var(--card); color: inherit; cursor: pointer; }
button.approve { background: var(--done); color: #fff; border-color: var(--done); }
button.reject { border-color: var(--failed); color: var(--failed); }
.problem { color: var(--failed); }
.pending .confirm { margin-top: .8rem; padding-top: .6rem; border-top: 1px dashed var(--wait); }
button.action:disabled { opacity: .5; cursor: default; }
.framed { margin: 2rem; font-size: 1rem; }
details.plan { margin: .3rem 0; }
`;
