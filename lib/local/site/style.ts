/** The site's one stylesheet, served at /site.css (a file of its own so the CSP needs no inline styles). */
export const SITE_CSS = `
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; background: #fafafa; }
body { margin: 0 auto; max-width: 60rem; padding: 0 1rem 2rem; }
header { border-bottom: 1px solid #ccc; margin-bottom: 1rem; }
.brand { font-weight: 600; }
.tag { font-weight: normal; color: #555; }
footer { margin-top: 2rem; border-top: 1px solid #ccc; color: #555; font-size: 0.9rem; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: 0.5rem; }
a { color: #0645ad; }
:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: 0.4rem 0.6rem; border-bottom: 1px solid #ddd; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tfoot th, tfoot td { font-weight: 700; border-top: 2px solid #333; }
button { font: inherit; padding: 0.6rem 1.4rem; border: 2px solid #1a5fb4; border-radius: 0.3rem; background: #1a5fb4; color: #fff; cursor: pointer; }
button:hover { background: #15498a; }
select { font: inherit; padding: 0.3rem; }
.notice { border-left: 4px solid #c01c28; background: #fff0f0; padding: 0.6rem 1rem; }
.success { border-left: 4px solid #26a269; background: #effaf3; padding: 0.6rem 1rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
ul.items { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: 1rem; }
ul.items li { background: #fff; border: 1px solid #ddd; padding: 0.6rem; }
ul.items img { display: block; width: auto; height: auto; max-width: 100%; max-height: 14rem; margin: 0 auto 0.5rem; }
.rating-Good { color: #1d6b3a; } .rating-Fair { color: #8a5a00; } .rating-Poor { color: #a51d2d; }
code { overflow-wrap: anywhere; }
table.lines tbody th { font-weight: 600; }
table.lines .unnamed { font-style: italic; font-weight: normal; }
table.lines small.guid { display: block; font-weight: normal; color: #555; font-family: ui-monospace, monospace; font-size: 0.8rem; }
/* A phone: each line a block, its name on top and the three figures labelled beneath, so nothing scrolls sideways. */
@media (max-width: 36rem) {
  table.lines, table.lines tbody, table.lines tfoot, table.lines caption { display: block; }
  table.lines thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.lines tbody tr { display: grid; grid-template-columns: repeat(3, 1fr); border-bottom: 1px solid #ddd; padding: 0.4rem 0; }
  table.lines tbody th { grid-column: 1 / -1; border: 0; padding-bottom: 0; }
  table.lines tbody td { border: 0; }
  table.lines tbody td::before { content: attr(data-label); display: block; font-size: 0.8rem; color: #555; }
  table.lines tfoot tr { display: flex; justify-content: space-between; border-top: 2px solid #333; }
  table.lines tfoot th, table.lines tfoot td { border: 0; }
}
`;
