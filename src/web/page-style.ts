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
nav { border-right: 1px solid var(--line); padding: .5rem; overflow-y: auto; }
nav button { display: block; width: 100%; text-align: left; padding: .45rem .5rem; margin-bottom: .25rem; border: 1px solid transparent;
  border-radius: 6px; background: none; color: inherit; font: inherit; cursor: pointer; }
nav button:hover { background: var(--card); border-color: var(--line); }
nav button[aria-current="true"] { background: var(--card); border-color: var(--progress); }
nav .task { display: block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
#run { padding: 1rem 1.4rem; overflow-x: auto; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; margin-bottom: .8rem; }
.badge { display: inline-block; font-size: .72rem; padding: .05rem .45rem; border-radius: 999px; color: #fff; background: var(--todo); }
.badge.running { background: var(--progress); } .badge.finished { background: var(--done); }
.badge.failed, .badge.aborted { background: var(--failed); } .badge.awaiting-approval { background: var(--wait); }
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
.tools { font: 12px/1.4 ui-monospace, monospace; }
.tools li { padding: .15rem 0; border-bottom: 1px dashed var(--line); list-style: none; overflow-wrap: anywhere; }
.tools ul { padding: 0; margin: 0; } .tools .error { color: var(--failed); } .tools .running { color: var(--progress); }
.pending { border-color: var(--wait); }
.pending pre, .answer { white-space: pre-wrap; overflow-wrap: anywhere; }
.pending pre { background: var(--bg); padding: .5rem; border-radius: 6px; max-height: 16rem; overflow: auto; font-size: 12px; }
.pending textarea { width: 100%; min-height: 6rem; font: 12px ui-monospace, monospace; }
.pending .actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-top: .4rem; }
.pending input[type="text"] { flex: 1; min-width: 12rem; padding: .3rem; }
button.action { padding: .3rem .8rem; border-radius: 6px; border: 1px solid var(--line); background: var(--card); color: inherit; cursor: pointer; }
button.approve { background: var(--done); color: #fff; border-color: var(--done); }
button.reject { border-color: var(--failed); color: var(--failed); }
.problem { color: var(--failed); }
details.plan { margin: .3rem 0; }
`;
