// toolpen web: the playground page. Plain JS, no build step. The token comes in the URL's fragment
// (never sent to a server), is kept in this origin's sessionStorage and rides on every API request.
"use strict";

const TOKEN_KEY = "toolpen-web-token";
(() => {
  const given = new URLSearchParams(location.hash.slice(1)).get("token")
    || new URLSearchParams(location.search).get("token");
  if (given) sessionStorage.setItem(TOKEN_KEY, given);
  if (location.hash || location.search) history.replaceState(null, "", location.pathname);
})();

const $ = (id) => document.getElementById(id);
const NEW_TURN = "(new turn)";
const state = {
  files: [],        // what /api/tools listed: {path, kind, label, editable, source}
  path: null,       // the file in the editor (NEW_TURN for a turn written in the page)
  kind: "tool",
  loaded: {},       // path -> the text last read from (or saved to) disk
  buffers: {},      // path -> the editor's text (differs from loaded[path] when edited)
  view: null, failedLine: null, timer: null, session: null, app: null,
};

async function api(path, body) {
  const headers = { "X-Toolpen-Token": sessionStorage.getItem(TOKEN_KEY) || "" };
  const options = body === undefined ? { headers } : {
    method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, { credentials: "omit", ...options });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error ? `${data.error.kind}: ${data.error.message}` : response.statusText);
  return data;
}

function status(text) { $("status").textContent = text; }

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// -- editor: gutter, highlighting (Prism's tokenizer, split into lines) --------------------------
function language() {
  if (state.kind !== "turn") return Prism.languages.python;
  return /\.ya?ml$/.test(state.path || "") ? Prism.languages.yaml : Prism.languages.json;
}

// Prism's tokens as HTML, one string per source line: a token spanning lines is cut at each newline.
function highlightedLines(source) {
  const lines = [[]];
  const walk = (token, classes) => {
    if (typeof token === "string") {
      token.split("\n").forEach((piece, index) => {
        if (index > 0) lines.push([]);
        if (!piece) return;
        const text = escapeHtml(piece);
        lines[lines.length - 1].push(classes.length ? `<span class="${classes.join(" ")}">${text}</span>` : text);
      });
      return;
    }
    const own = ["token", token.type].concat(token.alias || []);
    for (const part of [].concat(token.content)) walk(part, classes.concat(own));
  };
  for (const token of Prism.tokenize(source, language())) walk(token, []);
  return lines.map((parts) => parts.join(""));
}

function diagnosticMarks() {
  const marks = {};
  for (const d of (state.view && state.kind !== "turn" ? state.view.diagnostics : [])) {
    if (d.level !== "note" && marks[d.line] !== "error") marks[d.line] = d.level;
  }
  if (state.failedLine) marks[state.failedLine] = "failed";
  return marks;
}

function renderEditor() {
  const source = $("source").value;
  const marks = diagnosticMarks();
  const lines = highlightedLines(source);
  const gutter = $("gutter");
  gutter.replaceChildren();
  for (let line = 1; line <= lines.length; line++) {
    const div = document.createElement("div");
    div.textContent = line;
    div.dataset.line = line;
    if (marks[line]) div.className = marks[line];
    gutter.append(div);
  }
  $("highlight").innerHTML = lines.map((html, index) => {
    const mark = marks[index + 1];
    if (mark === "failed") return `<span class="hl-failed">${html || " "}</span>`;
    if (mark === "error") return `<span class="hl-error">${html || " "}</span>`;
    return html;
  }).join("\n") + "\n";
  syncScroll();
}

function syncScroll() {
  const text = $("source");
  $("highlight").scrollTop = text.scrollTop;
  $("highlight").scrollLeft = text.scrollLeft;
  $("gutter").scrollTop = text.scrollTop;
}

// -- diagnostics and schema ---------------------------------------------------------------------
async function refresh() {
  const source = $("source").value;
  if (state.kind === "turn") return refreshTurn(source);
  const view = await api("/api/check", { source });
  if ($("source").value !== source) return;  // typed again meanwhile: a newer check follows
  state.view = view;
  const list = $("diagnostics");
  list.replaceChildren();
  for (const d of view.diagnostics) {
    const li = document.createElement("li");
    li.className = d.level;
    li.dataset.line = d.line;
    li.textContent = `line ${d.line}:${d.col}: ${d.level}: ${d.message}`;
    list.append(li);
  }
  if (!view.diagnostics.length) list.innerHTML = "<li>no problems</li>";
  renderSchema();
  if (state.kind === "tool") renderForm(view.parameters);
  renderEditor();
}

function refreshTurn(source) {
  const list = $("diagnostics");
  let problem = null;
  try {
    const script = JSON.parse(source);
    if (!script || !Array.isArray(script.calls)) problem = 'a turn is an object with a "calls" list';
    else $("turn-session").textContent = `(session ${script.session || "turn"})`;
  } catch (error) {
    if (!/\.ya?ml$/.test(state.path || "")) problem = `not valid JSON: ${error.message}`;
  }
  list.innerHTML = problem ? `<li class="error">${escapeHtml(problem)}</li>` : "<li>no problems</li>";
  renderEditor();
}

function edited() {
  const edits = {};
  for (const [path, text] of Object.entries(state.buffers)) {
    if (path !== NEW_TURN && text !== state.loaded[path]) edits[path] = text;
  }
  return edits;
}

function onInput() {
  state.buffers[state.path] = $("source").value;
  markDirty();
  schedule();
}

function schedule() {
  state.failedLine = null;
  renderEditor();
  clearTimeout(state.timer);
  state.timer = setTimeout(() => refresh().catch((e) => status(e.message)), 300);
}

function markDirty() {
  const file = state.files.find((f) => f.path === state.path);
  const dirty = state.path !== NEW_TURN && state.buffers[state.path] !== state.loaded[state.path];
  $("save").disabled = !dirty || !file || !file.editable;
  $("save").title = file && !file.editable ? "read-only: the app is a zip, or the code is inline in a resource" : "";
  for (const button of document.querySelectorAll("#groups button")) {
    const path = button.dataset.path;
    button.classList.toggle("dirty", state.buffers[path] !== undefined && state.buffers[path] !== state.loaded[path]);
  }
}

function renderSchema() {
  const schemas = state.view ? state.view.schemas : {};
  let key = $("format").value;
  $("strict").disabled = key !== "responses";
  if (key === "responses" && $("strict").checked) key = "responses_strict";
  const schema = schemas[key];
  $("schema").textContent = schema ? JSON.stringify(schema, null, 2) : "(no schema: fix the errors above)";
}

// -- the arguments form ------------------------------------------------------------------------
function fieldType(schema) {
  if (schema.enum) return "enum";
  let type = schema.type;
  if (!type && schema.anyOf) {
    const kinds = schema.anyOf.map((s) => s.type).filter((t) => t && t !== "null");
    if (kinds.length === 1 && !schema.anyOf.some((s) => s.enum || s.$ref)) type = kinds[0];
  }
  return ["string", "number", "integer", "boolean"].includes(type) ? type : "json";
}

function renderForm(parameters) {
  const form = $("form");
  const previous = formArgs(true);
  form.replaceChildren();
  state.parameters = parameters;
  if (!parameters) return;
  const required = new Set(parameters.required || []);
  const fields = Object.entries(parameters.properties || {});
  if (!fields.length) form.innerHTML = "<p class='hint'>This tool takes no arguments.</p>";
  for (const [name, schema] of fields) {
    const kind = fieldType(schema);
    const wrap = document.createElement("div");
    wrap.className = "field";
    const label = document.createElement("label");
    label.append(`${name} `);
    if (required.has(name)) label.insertAdjacentHTML("beforeend", '<span class="req">*</span> ');
    let input;
    if (kind === "enum") {
      input = document.createElement("select");
      if (!required.has(name)) input.append(new Option("(not given)", ""));
      for (const value of schema.enum) input.append(new Option(String(value), JSON.stringify(value)));
    } else if (kind === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
    } else if (kind === "json") {
      input = document.createElement("textarea");
      input.className = "json";
      input.placeholder = "JSON";
    } else {
      input = document.createElement("input");
      input.type = kind === "string" ? "text" : "number";
      if (kind === "integer") input.step = "1";
    }
    input.name = name;
    input.dataset.kind = kind;
    const value = name in previous ? previous[name] : schema.default;
    if (value !== undefined) setField(input, kind, value);
    label.append(input);
    wrap.append(label);
    const types = schema.type || (schema.anyOf || []).map((s) => s.type || "object").join(" or ");
    const hint = [schema.description, types, kind === "json" ? "(JSON)" : ""];
    wrap.insertAdjacentHTML("beforeend", `<small>${escapeHtml(hint.filter(Boolean).join(" · "))}</small>`);
    form.append(wrap);
  }
}

function setField(input, kind, value) {
  if (kind === "boolean") input.checked = Boolean(value);
  else if (kind === "enum") input.value = JSON.stringify(value);
  else if (kind === "json") input.value = JSON.stringify(value);
  else input.value = value === null ? "" : String(value);
}

function formArgs(lenient = false) {
  const args = {};
  for (const input of $("form").querySelectorAll("[name]")) {
    const kind = input.dataset.kind;
    if (kind === "boolean") { args[input.name] = input.checked; continue; }
    if (input.value === "") continue;
    try {
      if (kind === "enum" || kind === "json") args[input.name] = JSON.parse(input.value);
      else if (kind === "number" || kind === "integer") args[input.name] = Number(input.value);
      else args[input.name] = input.value;
    } catch (error) {
      if (!lenient) throw new Error(`${input.name}: not valid JSON`);
    }
  }
  return args;
}

function currentArgs() {
  return $("raw-toggle").checked ? JSON.parse($("raw-args").value || "{}") : formArgs();
}

// -- run, diff, timeline -----------------------------------------------------------------------
async function run() {
  let args, stateJson;
  try {
    args = currentArgs();
    stateJson = JSON.parse($("state-json").value || "{}");
  } catch (error) {
    status(`arguments or state: ${error.message}`);
    return;
  }
  const context = { state: stateJson, user_content: { role: "user", parts: [{ text: $("user-message").value }] } };
  status("running…");
  const result = await api("/api/run", { source: $("source").value, args, context, edits: edited() });
  status("");
  showResult(result);
  state.session = result.session;
  await loadTimeline();
}

function showResult(result) {
  $("result").hidden = false;
  $("result-status").textContent = result.success ? "ok" : "failed";
  $("result-status").className = result.success ? "ok" : "failed";
  $("duration").textContent = `${result.duration_ms} ms` + (result.faked ? ", faked" : "") +
    (result.replaced_by ? `, output from ${result.replaced_by}` : "");
  $("output").textContent = result.success ? JSON.stringify(result.output, null, 2) : "";
  $("error").textContent = errorText(result.error);
  $("logs").textContent = result.logs || "(no logs)";
  state.failedLine = result.error && result.error.line ? result.error.line : null;
  renderEditor();
  renderDiff($("diff"), result.state_before || {}, result.state || result.state_before || {});
  $("delta").textContent = JSON.stringify(result.state_delta || {}, null, 2);
}

function errorText(error) {
  return error ? `${error.kind}${error.line ? ` (line ${error.line})` : ""}: ${error.message}` : "";
}

function renderDiff(table, before, after) {
  const body = table.querySelector("tbody");
  body.replaceChildren();
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const key of keys) {
    const had = key in before, has = key in after;
    const old = had ? JSON.stringify(before[key]) : "", now = has ? JSON.stringify(after[key]) : "";
    const row = body.insertRow();
    row.className = !had ? "added" : !has ? "removed" : old !== now ? "changed" : "same";
    for (const text of [key, old, now]) row.insertCell().textContent = text;
  }
  if (!keys.length) body.insertRow().insertCell().textContent = "(empty state)";
}

function deltaKeys(delta) {
  return delta ? Object.keys(delta.set || {}).concat((delta.deleted || []).map((k) => `-${k}`)) : [];
}

async function loadTimeline() {
  const { events } = await api(`/api/timeline?session=${encodeURIComponent(state.session)}`);
  $("timeline-session").textContent = `of session ${state.session}`;
  const list = $("timeline");
  list.replaceChildren();
  for (const event of events) {
    const li = document.createElement("li");
    const parts = (event.content && event.content.parts) || [];
    const what = parts.map((p) => p.function_call ? `call ${p.function_call.name}` :
      p.function_response ? `response ${p.function_response.name}` : p.text ? `"${p.text}"` : "part").join(", ");
    const changed = deltaKeys(event.actions && event.actions.state_delta);
    li.textContent = `${event.author}: ${what || "state change"} `;
    if (changed.length) li.insertAdjacentHTML("beforeend", `<code>Δ ${escapeHtml(changed.join(", "))}</code>`);
    list.append(li);
  }
}

// -- turns ---------------------------------------------------------------------------------------
async function runTurn() {
  status("running the turn…");
  const path = state.path === NEW_TURN ? null : state.path;
  const result = await api("/api/turn", { path, script: $("source").value, edits: edited() });
  status("");
  showTurn(result);
  state.session = result.session;
  await loadTimeline();
}

function showTurn(result) {
  $("turn-result").hidden = false;
  const failed = result.error || result.steps.some((step) => !step.success);
  $("turn-status").textContent = failed ? "failed" : "ok";
  $("turn-status").className = failed ? "failed" : "ok";
  $("turn-duration").textContent = result.duration_ms ? `${result.duration_ms} ms, session ${result.session}` : "";
  $("turn-error").textContent = errorText(result.error);
  const notes = $("turn-notes");
  notes.replaceChildren();
  for (const note of result.notes || []) notes.insertAdjacentHTML("beforeend", `<li>${escapeHtml(note)}</li>`);
  const hooks = Object.entries(result.hooks || {}).map(([kind, entries]) => `${kind}: ${entries.join(", ")}`);
  $("turn-hooks").textContent = hooks.length ? `Callbacks and fakes: ${hooks.join("; ")}` : "No callbacks or fakes.";
  const list = $("steps");
  list.replaceChildren();
  for (const step of result.steps || []) list.append(stepItem(step));
  if (result.steps && result.steps.length) renderDiff($("turn-diff"), result.state_before || {}, result.state || {});
}

function stepItem(step) {
  const li = document.createElement("li");
  li.className = `step ${step.success ? "ok" : "failed"}`;
  const head = document.createElement("div");
  head.className = "step-head";
  const badges = [step.success ? "ok" : "failed"];
  if (step.name.endsWith("_callback")) badges.push("callback");
  if (step.faked) badges.push("faked");
  head.innerHTML = `<b>${escapeHtml(step.name)}</b> ` + badges.map((b) => `<span class="badge ${b}">${b}</span>`).join(" ");
  if (step.replaced_by) head.insertAdjacentHTML("beforeend", ` <span class="badge callback">output from ${escapeHtml(step.replaced_by)}</span>`);
  const changed = deltaKeys(step.state_delta);
  if (changed.length) head.insertAdjacentHTML("beforeend", ` <code>Δ ${escapeHtml(changed.join(", "))}</code>`);
  li.append(head);
  const body = document.createElement("pre");
  body.className = "step-output";
  body.textContent = step.success ? JSON.stringify(step.output, null, 2) : errorText(step.error);
  li.append(body);
  if (step.logs) {
    const logs = document.createElement("pre");
    logs.className = "step-logs";
    logs.textContent = step.logs;
    li.append(logs);
  }
  return li;
}

function turnTemplate() {
  const tool = (state.view && state.view.name) ||
    ((state.files.find((f) => f.kind === "tool") || {}).label || "my_tool").replace(/\.py$/, "");
  const script = {
    session: "my-turn",
    context: { user_content: { role: "user", parts: [{ text: "Hello" }] }, state: {} },
    calls: [{ tool, args: state.kind === "tool" ? formArgs(true) : {} }],
  };
  if (!state.app) {  // the page's tools are all registered; the callbacks and fakes it lists, named
    const named = (kind) => state.files.filter((f) => f.kind === kind).map((f) => f.path);
    if (named("callbacks").length) script.callbacks = named("callbacks");
    if (named("fakes").length) script.fakes = named("fakes");
  }
  return JSON.stringify(script, null, 2) + "\n";
}

// -- files -------------------------------------------------------------------------------------
function showPanes() {
  $("try").hidden = state.kind !== "tool";
  $("hooks-pane").hidden = state.kind !== "callbacks" && state.kind !== "fakes";
  $("turn-pane").hidden = state.kind !== "turn";
  $("schema-box").hidden = state.kind !== "tool";
}

function show(path, kind, text) {
  state.path = path;
  state.kind = kind;
  state.view = null;
  $("current").textContent = `\u200e${path}\u200e`;  // shown right-aligned (rtl): the file name stays visible
  $("current").title = path;
  $("source").value = text;
  $("disk-note").hidden = true;
  for (const button of document.querySelectorAll("#groups button")) button.classList.toggle("active", button.dataset.path === path);
  showPanes();
  markDirty();
  schedule();
}

async function openFile(path) {
  const file = state.files.find((f) => f.path === path);
  if (state.buffers[path] !== undefined && state.buffers[path] !== state.loaded[path]) {
    show(path, file.kind, state.buffers[path]);  // unsaved edits stay until saved or dropped
    return;
  }
  const { source, error } = await api(`/api/file?path=${encodeURIComponent(path)}`);
  if (error) { status(`${path}: ${error}`); return; }
  state.loaded[path] = source;
  state.buffers[path] = source;
  show(path, file.kind, source);
}

function newTurn() {
  if (state.buffers[NEW_TURN] === undefined) state.buffers[NEW_TURN] = turnTemplate();
  show(NEW_TURN, "turn", state.buffers[NEW_TURN]);
  status("a new turn lives in this page only: Run turn plays it");
}

const GROUPS = [["tool", "Tools"], ["callbacks", "Callbacks"], ["fakes", "Fakes"], ["turn", "Turns"]];

async function loadFiles() {
  const { tools, walls, app, session, public: exposed } = await api("/api/tools");
  state.session = session;
  $("public-warning").hidden = !exposed;
  $("walls").textContent = `walls: ${walls}`;
  state.files = tools;
  state.app = app;
  if (app) {
    $("app-info").textContent = `app: ${app.name} · agent: ${app.agent || "(none)"} · fakes ${app.fakes ? "on" : "off"}` +
      (app.toolsets.length ? ` · toolsets: ${app.toolsets.join(", ")}` : "");
    $("state-label").textContent = "Session state (JSON, applied over the stored state; a new session starts from the app's declared defaults)";
  }
  const groups = $("groups");
  groups.replaceChildren();
  for (const [kind, title] of GROUPS) {
    const files = tools.filter((f) => f.kind === kind);
    if (!files.length) continue;
    groups.insertAdjacentHTML("beforeend", `<h2>${title}</h2>`);
    const list = document.createElement("ul");
    list.dataset.kind = kind;
    for (const file of files) {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.dataset.path = file.path;
      button.title = file.path;
      button.textContent = file.label;
      if (!file.editable) button.insertAdjacentHTML("beforeend", "<small>read-only</small>");
      button.disabled = !("source" in file);
      button.addEventListener("click", () => openFile(file.path).catch((e) => status(e.message)));
      li.append(button);
      list.append(li);
    }
    groups.append(list);
  }
  const first = tools.find((f) => f.kind === "tool" && "source" in f);
  if (first) await openFile(first.path); else newTurn();
}

// A file changed outside the page is picked up; unsaved edits are kept and the change is announced.
async function watchFile() {
  const path = state.path;
  if (!path || path === NEW_TURN) return;
  const { source } = await api(`/api/file?path=${encodeURIComponent(path)}`);
  if (source === undefined || source === state.loaded[path] || path !== state.path) return;
  if ($("source").value === state.loaded[path]) {
    state.loaded[path] = state.buffers[path] = source;
    $("source").value = source;
    markDirty();
    schedule();
    status(`reloaded ${path}: it changed on disk`);
  } else {
    $("disk-text").textContent = "This file changed on disk; your unsaved edits are kept (Save overwrites the file).";
    $("disk-note").hidden = false;
    status(`${path} changed on disk: Save overwrites it`);
    state.loaded[path] = source;
    markDirty();
  }
}

function save() {
  const path = state.path, source = $("source").value;
  return api("/api/save", { path, source }).then(() => {
    status(`saved ${path}`);
    state.loaded[path] = state.buffers[path] = source;
    $("disk-note").hidden = true;
    markDirty();
  });
}

function renderFormFromRaw() {
  let args;
  try { args = JSON.parse($("raw-args").value || "{}"); } catch (error) { return; }
  for (const input of $("form").querySelectorAll("[name]")) {
    if (input.name in args) setField(input, input.dataset.kind, args[input.name]);
  }
}

function wire() {
  const report = (e) => status(e.message);
  $("source").addEventListener("input", onInput);
  $("source").addEventListener("scroll", syncScroll);
  $("source").addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    event.preventDefault();
    document.execCommand("insertText", false, "    ");
  });
  $("format").addEventListener("change", renderSchema);
  $("strict").addEventListener("change", renderSchema);
  $("copy").addEventListener("click", () => navigator.clipboard.writeText($("schema").textContent).then(() => status("copied")));
  $("raw-toggle").addEventListener("change", () => {
    const raw = $("raw-toggle").checked;
    if (raw) $("raw-args").value = JSON.stringify(formArgs(true), null, 2);
    else renderFormFromRaw();
    $("raw-args").hidden = !raw;
    $("form").hidden = raw;
  });
  $("run").addEventListener("click", () => run().catch(report));
  $("run-turn").addEventListener("click", () => runTurn().catch(report));
  $("new-turn").addEventListener("click", newTurn);
  $("reset").addEventListener("click", () => api("/api/reset", { session: state.session }).then(loadTimeline).catch(report));
  $("save").addEventListener("click", () => save().catch(report));
  $("load-disk").addEventListener("click", () => {
    state.buffers[state.path] = state.loaded[state.path];
    show(state.path, state.kind, state.loaded[state.path]);
    status(`loaded ${state.path} from disk`);
  });
}

wire();
loadFiles().then(loadTimeline).catch((e) => status(e.message));
setInterval(() => watchFile().catch((e) => status(e.message)), 1500);
