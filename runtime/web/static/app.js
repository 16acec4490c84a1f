// toolpen web: the playground page. Plain JS, no build step; every request rides on the token cookie.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { files: [], path: null, view: null, failedLine: null, timer: null };

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, { credentials: "same-origin", ...options });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error ? `${data.error.kind}: ${data.error.message}` : response.statusText);
  return data;
}

function status(text) { $("status").textContent = text; }

// -- editor: gutter, highlighting ------------------------------------------------------------
const KEYWORDS = new Set(("False None True and as assert async await break class continue def del elif else except " +
  "finally for from global if import in is lambda nonlocal not or pass raise return try while with yield").split(" "));
const TOKEN = /(#[^\n]*)|("""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)|"(?:\\.|[^"\\\n])*"?|'(?:\\.|[^'\\\n])*'?)|\b(\d+(?:\.\d+)?)\b|\b([A-Za-z_]\w*)\b/g;

function escapeHtml(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function highlight(source) {
  let html = "", last = 0, afterDef = false;
  for (const match of source.matchAll(TOKEN)) {
    html += escapeHtml(source.slice(last, match.index));
    const [text, comment, string, number, word] = match;
    let cls = null;
    if (comment) cls = "com"; else if (string) cls = "str"; else if (number) cls = "num";
    else if (word && KEYWORDS.has(word)) cls = "kw"; else if (word && afterDef) cls = "def";
    afterDef = word === "def" || word === "class";
    html += cls ? `<span class="tok-${cls}">${escapeHtml(text)}</span>` : escapeHtml(text);
    last = match.index + text.length;
  }
  html += escapeHtml(source.slice(last));
  if (state.failedLine) {
    const lines = html.split("\n");
    const index = state.failedLine - 1;
    if (index < lines.length) lines[index] = `<span class="hl-failed">${lines[index] || " "}</span>`;
    html = lines.join("\n");
  }
  return html + "\n";
}

function renderEditor() {
  const source = $("source").value;
  const count = source.split("\n").length;
  const marks = {};
  for (const d of (state.view ? state.view.diagnostics : [])) {
    if (d.level !== "note" && marks[d.line] !== "error") marks[d.line] = d.level;
  }
  if (state.failedLine) marks[state.failedLine] = "failed";
  const gutter = $("gutter");
  gutter.replaceChildren();
  for (let line = 1; line <= count; line++) {
    const div = document.createElement("div");
    div.textContent = line;
    div.dataset.line = line;
    if (marks[line]) div.className = marks[line];
    gutter.append(div);
  }
  $("highlight").innerHTML = highlight(source);
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
  renderForm(view.parameters);
  renderEditor();
}

function schedule() {
  state.failedLine = null;
  renderEditor();
  clearTimeout(state.timer);
  state.timer = setTimeout(() => refresh().catch((e) => status(e.message)), 300);
  $("save").disabled = !state.path;
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
  for (const [name, schema] of Object.entries(parameters.properties || {})) {
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
    const hint = [schema.description, schema.type || (schema.anyOf ? "any of" : ""), kind === "json" ? "(JSON)" : ""];
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
  const result = await api("/api/run", { source: $("source").value, args, context });
  status("");
  showResult(result);
  await loadTimeline();
}

function showResult(result) {
  $("result").hidden = false;
  $("result-status").textContent = result.success ? "ok" : "failed";
  $("result-status").className = result.success ? "ok" : "failed";
  $("duration").textContent = `${result.duration_ms} ms`;
  $("output").textContent = result.success ? JSON.stringify(result.output, null, 2) : "";
  const error = result.error;
  $("error").textContent = error ? `${error.kind}${error.line ? ` (line ${error.line})` : ""}: ${error.message}` : "";
  $("logs").textContent = result.logs || "(no logs)";
  state.failedLine = error && error.line ? error.line : null;
  renderEditor();
  renderDiff(result.state_before || {}, result.state || result.state_before || {});
  $("delta").textContent = JSON.stringify(result.state_delta || {}, null, 2);
}

function renderDiff(before, after) {
  const body = $("diff").querySelector("tbody");
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

async function loadTimeline() {
  const { events } = await api("/api/timeline");
  const list = $("timeline");
  list.replaceChildren();
  for (const event of events) {
    const li = document.createElement("li");
    const parts = (event.content && event.content.parts) || [];
    const what = parts.map((p) => p.function_call ? `call ${p.function_call.name}` :
      p.function_response ? `response ${p.function_response.name}` : p.text ? `"${p.text}"` : "part").join(", ");
    const delta = event.actions && event.actions.state_delta;
    const changed = delta ? Object.keys(delta.set || {}).concat((delta.deleted || []).map((k) => `-${k}`)) : [];
    li.textContent = `${event.author}: ${what || "state change"} `;
    if (changed.length) li.insertAdjacentHTML("beforeend", `<code>Δ ${escapeHtml(changed.join(", "))}</code>`);
    list.append(li);
  }
}

// -- files -------------------------------------------------------------------------------------
function openFile(file) {
  state.path = file.path;
  $("current").textContent = file.path;
  $("source").value = file.source;
  state.loaded = file.source;
  $("save").disabled = true;
  for (const button of $("tools").querySelectorAll("button")) button.classList.toggle("active", button.dataset.path === file.path);
  schedule();
}

async function loadFiles() {
  const { tools, walls } = await api("/api/tools");
  $("walls").textContent = `walls: ${walls}`;
  state.files = tools;
  const list = $("tools");
  list.replaceChildren();
  for (const file of tools) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.dataset.path = file.path;
    button.textContent = file.path.split("/").pop();
    button.insertAdjacentHTML("beforeend", `<small>${file.kind || "unreadable"}</small>`);
    button.disabled = !("source" in file);
    button.addEventListener("click", () => openFile(state.files.find((f) => f.path === file.path)));
    li.append(button);
    list.append(li);
  }
  const first = tools.find((f) => f.kind === "tool");
  if (first) openFile(first); else schedule();
}

function wire() {
  $("source").addEventListener("input", schedule);
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
  $("run").addEventListener("click", () => run().catch((e) => status(e.message)));
  $("reset").addEventListener("click", () => api("/api/reset", {}).then(loadTimeline).catch((e) => status(e.message)));
  $("save").addEventListener("click", () => api("/api/save", { path: state.path, source: $("source").value })
    .then(() => { status(`saved ${state.path}`); state.loaded = $("source").value; $("save").disabled = true; })
    .catch((e) => status(e.message)));
}

function renderFormFromRaw() {
  let args;
  try { args = JSON.parse($("raw-args").value || "{}"); } catch (error) { return; }
  for (const input of $("form").querySelectorAll("[name]")) {
    if (input.name in args) setField(input, input.dataset.kind, args[input.name]);
  }
}

// A file changed outside the page is picked up; unsaved edits are kept and the change is announced.
async function watchFiles() {
  const { tools } = await api("/api/tools");
  const file = tools.find((f) => f.path === state.path);
  if (!file || !("source" in file) || file.source === state.loaded) return;
  const idx = state.files.findIndex((f) => f.path === file.path);
  if (idx >= 0) state.files[idx] = file;
  if ($("source").value === state.loaded) {
    openFile(file);
    status(`reloaded ${file.path}: it changed on disk`);
  } else {
    state.loaded = file.source;
    status(`${file.path} changed on disk: Save overwrites it`);
  }
}

if (location.search.includes("token=")) history.replaceState(null, "", location.pathname);
wire();
loadFiles().then(loadTimeline).catch((e) => status(e.message));
setInterval(() => watchFiles().catch((e) => status(e.message)), 1500);
