// Style sheets, as strings handed to adoptStyles. Colours are custom properties set on `.theme`, so
// the app's colour and dark mode are one class and two properties (theme.ts).

/** The palette, light and dark; `--accent` / `--on-accent` come from the app's theme. */
export const THEME_CSS = `
.theme{--accent:#2563eb;--on-accent:#fff;--bg:#fff;--fg:#1b1d21;--muted:#5f6670;--line:#d8dbe0;--soft:#f2f4f7;--bad:#b42318;
color:var(--fg);background:var(--bg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;box-sizing:border-box}
.theme.dark{--bg:#17191e;--fg:#e8eaed;--muted:#a3a9b3;--line:#3a3f48;--soft:#23262d;--bad:#ff8a80}
.theme *,.theme *::before,.theme *::after{box-sizing:inherit}
.theme :where(button,textarea,input){font:inherit;color:inherit}
.theme :where(button){cursor:pointer}
.theme :focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.theme [hidden]{display:none!important}
.alert{margin:8px 12px;padding:8px 10px;border-radius:8px;background:var(--soft);color:var(--bad);border:1px solid var(--bad)}
.alert:empty{display:none}
.md{overflow-wrap:anywhere;min-width:0}
.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md p,.md ul,.md ol,.md pre,.md blockquote{margin:0 0 .6em}
.md ul,.md ol{padding-left:1.4em}
.md h3,.md h4,.md h5,.md h6{margin:.6em 0 .3em;font-size:1em}
.md h3{font-size:1.1em}
.md code{font:.9em ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--soft);padding:.1em .3em;border-radius:4px}
.md pre{background:var(--soft);padding:8px 10px;border-radius:8px;white-space:pre-wrap}
.md pre code{background:none;padding:0}
.md blockquote{border-left:3px solid var(--line);padding-left:10px;color:var(--muted)}
.md a{color:var(--accent)}
.theme.dark .md a{color:inherit}
.md hr{border:0;border-top:1px solid var(--line)}
`;

/** The chat itself, the same in the widget's panel and on the web app's page. */
export const CHAT_CSS = `
.chat{display:flex;flex-direction:column;height:100%;min-height:0;position:relative;overflow:hidden}
.head{display:flex;align-items:center;gap:4px;padding:8px 8px 8px 14px;background:var(--accent);color:var(--on-accent);flex:none}
.head h2{flex:1;margin:0;font-size:16px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.icon{border:0;background:transparent;color:inherit;min-width:36px;height:36px;border-radius:8px;font-size:18px;line-height:1;padding:0 8px}
.icon:hover{background:rgba(127,127,127,.2)}
.body{flex:1;display:flex;min-height:0;position:relative}
.side{position:absolute;inset:0 30% 0 0;z-index:2;background:var(--bg);border-right:1px solid var(--line);display:flex;flex-direction:column;padding:8px;gap:6px;overflow:auto;box-shadow:4px 0 16px rgba(0,0,0,.15)}
.side ul{list-style:none;margin:0;padding:0}
.side li button{width:100%;text-align:left;border:0;background:none;padding:8px;border-radius:6px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.side li button:hover,.side li button[aria-current=true]{background:var(--soft)}
.side li button[aria-current=true]{font-weight:600}
.side .muted{color:var(--muted);padding:8px;margin:0}
.btn{border:1px solid var(--line);background:var(--bg);border-radius:8px;padding:6px 10px}
.btn:hover{background:var(--soft)}
.primary{background:var(--accent);color:var(--on-accent);border-color:var(--accent)}
.primary:hover{background:var(--accent);filter:brightness(1.08)}
.main{flex:1;display:flex;flex-direction:column;min-width:0}
.log{flex:1;overflow-y:auto;overflow-x:hidden;padding:12px;display:flex;flex-direction:column;gap:10px}
.msg{max-width:88%;padding:8px 12px;border-radius:14px;min-width:0}
.user{align-self:flex-end;background:var(--accent);color:var(--on-accent);white-space:pre-wrap;overflow-wrap:anywhere;border-bottom-right-radius:4px}
.assistant{align-self:flex-start;background:var(--soft);border-bottom-left-radius:4px}
.status{color:var(--muted);font-style:italic}
.cites{display:flex;flex-wrap:wrap;gap:4px;margin-top:6px}
.cite{border:1px solid var(--line);background:var(--bg);border-radius:999px;padding:1px 8px;font-size:13px;max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.cite[aria-expanded=true]{border-color:var(--accent)}
.passage{margin:6px 0 0;padding:8px 10px;border-left:3px solid var(--accent);background:var(--bg);border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:14px}
.passage .src{margin:0 0 4px;color:var(--muted);font-size:12px}
.passage p{margin:0}
.fb{display:flex;flex-wrap:wrap;align-items:center;gap:2px;margin-top:4px}
.fb .icon{min-width:30px;height:30px;font-size:15px;opacity:.75}
.fb .icon[aria-pressed=true]{opacity:1;background:rgba(127,127,127,.25);color:var(--accent)}
.fb svg{width:16px;height:16px;fill:currentColor;vertical-align:middle}
.fb .dislike svg{transform:rotate(180deg)}
.fb form{display:flex;gap:4px;flex-basis:100%;margin-top:4px}
.fb textarea{flex:1;min-width:0;border:1px solid var(--line);border-radius:6px;background:var(--bg);padding:4px 6px;resize:vertical}
.fb [role=status]{color:var(--muted);font-size:13px}
.starters{display:flex;flex-wrap:wrap;gap:6px;padding:0 12px 8px}
.starters button{border:1px solid var(--accent);background:var(--bg);color:var(--fg);border-radius:999px;padding:4px 12px;text-align:left}
.composer{display:flex;gap:6px;padding:10px;border-top:1px solid var(--line);flex:none;align-items:flex-end}
.composer textarea{flex:1;resize:none;border:1px solid var(--line);border-radius:10px;padding:8px 10px;background:var(--bg);max-height:160px;min-height:40px;overflow-y:auto}
.composer button{height:40px}
.composer button[aria-disabled=true]{opacity:.55;cursor:default}
.earlier{align-self:center}
`;

/** The widget: the host element, the bubble and the floating panel. */
export const WIDGET_CSS = `
:host{all:initial;position:fixed;z-index:2147483000;bottom:20px;right:20px}
:host(.left){right:auto;left:20px}
.bubble{width:56px;height:56px;border-radius:50%;border:0;background:var(--accent);color:var(--on-accent);box-shadow:0 4px 16px rgba(0,0,0,.25);display:grid;place-items:center;padding:0;background-clip:padding-box}
.bubble svg{width:26px;height:26px;fill:currentColor}
.bubble:hover{filter:brightness(1.08)}
.theme.bubble-wrap{background:transparent}
.panel{position:absolute;bottom:68px;right:0;width:min(380px,calc(100vw - 32px));height:min(600px,calc(100vh - 110px));border-radius:14px;box-shadow:0 8px 32px rgba(0,0,0,.3);overflow:hidden;border:1px solid var(--line)}
:host(.left) .panel{right:auto;left:0}
@media (max-width:480px){.panel{position:fixed;inset:0;width:auto;height:auto;border-radius:0;border:0}}
`;

/** The web app's page: the chat filling the window, or the workflow's form and outputs. */
export const PAGE_CSS = `
html,body{margin:0;height:100%}
body{background:#f2f4f7}
body.dark{background:#0f1115}
#app{height:100%}
.page{height:100%;max-width:1100px;margin:0 auto}
@media (min-width:760px){
.page .side{position:static;inset:auto;width:260px;flex:none;box-shadow:none}
.page .side[hidden]{display:flex!important}
.page .menu{display:none}
}
.loading{padding:24px;color:#5f6670;font:15px system-ui,sans-serif}
.form-page{min-height:100%;overflow:auto}
.form-page .wrap{max-width:720px;margin:0 auto;padding:16px}
.form-page h1{font-size:22px;margin:8px 0 4px}
.form-page .desc{color:var(--muted);margin:0 0 16px}
.field{display:flex;flex-direction:column;gap:4px;margin-bottom:14px}
.field label{font-weight:600}
.field .hint{color:var(--muted);font-size:13px;margin:0}
.field textarea,.field input[type=number]{border:1px solid var(--line);border-radius:8px;padding:8px 10px;background:var(--bg);width:100%}
.field textarea{min-height:70px;resize:vertical}
.field .json{font-family:ui-monospace,Menlo,monospace;font-size:14px}
.field.check{flex-direction:row;align-items:center;gap:8px}
.field .error{color:var(--bad);font-size:14px;margin:0}
.field [aria-invalid=true]{border-color:var(--bad)}
.progress{list-style:none;padding:0;margin:16px 0;display:flex;flex-direction:column;gap:4px}
.progress li{color:var(--muted)}
.progress li.done{color:var(--fg)}
.progress li.failed{color:var(--bad)}
.outputs{margin-top:16px;display:flex;flex-direction:column;gap:12px}
.output{border:1px solid var(--line);border-radius:10px;padding:10px 12px;background:var(--bg);min-width:0}
.output h3{margin:0 0 6px;font-size:14px;color:var(--muted)}
.output pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:13px ui-monospace,Menlo,monospace}
.output img{max-width:100%;height:auto;border-radius:8px;display:block}
`;
