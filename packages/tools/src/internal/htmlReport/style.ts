/** The report's style sheet: inline in the page (no file, no network), light and dark by the reader's setting. */
export const css = `
:root { color-scheme: light dark; --pass: #1a7f37; --fail: #cf222e; --error: #9a6700; --muted: #6e7781; --line: #d0d7de; --soft: #f6f8fa; --mark: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --pass: #3fb950; --fail: #f85149; --error: #d29922; --muted: #8b949e; --line: #30363d; --soft: #161b22; --mark: #3b2e00; } }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
code, pre, .mono { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; margin: 4px 0; max-height: 320px; overflow: auto; padding: 8px; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.muted { color: var(--muted); }
.passed { color: var(--pass); }
.failed { color: var(--fail); }
.error { color: var(--error); }
.summary { display: flex; flex-wrap: wrap; gap: 8px 24px; margin: 12px 0; }
.summary .figure { font-size: 20px; font-weight: 600; }
.verdict { border-radius: 6px; color: #fff; font-weight: 700; padding: 2px 10px; }
.verdict.pass { background: var(--pass); }
.verdict.fail { background: var(--fail); }
.toolbar { align-items: center; display: flex; gap: 12px; margin: 16px 0 8px; }
.toolbar[hidden] { display: none; }
.toolbar input { border: 1px solid var(--line); border-radius: 6px; font: inherit; padding: 6px 10px; width: 360px; }
details.case { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; }
details.case > summary { cursor: pointer; padding: 8px 12px; }
details.case > div { border-top: 1px solid var(--line); padding: 8px 12px 12px; }
details.case[data-status="failed"] { border-left: 4px solid var(--fail); }
details.case[data-status="error"] { border-left: 4px solid var(--error); }
details.case[data-status="passed"] { border-left: 4px solid var(--pass); }
.sequences { display: grid; gap: 0 16px; grid-template-columns: 2.5em 1fr 1fr; }
.sequences > div { border-bottom: 1px solid var(--line); padding: 4px 6px; }
.sequences .head { color: var(--muted); font-weight: 600; }
.sequences .diverges { background: var(--mark); }
.divergence-label { color: var(--fail); font-weight: 600; }
.timeline .call { margin: 4px 0; }
.timeline .bar { background: var(--muted); border-radius: 3px; display: inline-block; height: 10px; margin-right: 8px; min-width: 2px; vertical-align: middle; }
.timeline .call.failed-call .bar { background: var(--fail); }
ul.failures { margin: 4px 0; padding-left: 20px; }
ul.failures li { color: var(--fail); }
.hidden-by-filter { display: none; }
`
