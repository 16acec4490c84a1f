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
  base: {},         // path -> the disk text the edits started from (a save refuses if the disk moved on)
  values: {},       // tool path -> the arguments typed in the form, by parameter name
  view: null, failedLine: null, timer: null, session: null, app: null, busy: false,
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
    li.title = "go to the line";
    li.addEventListener("click", () => goToLine(d.line, d.col));
    list.append(li);
  }
  if (!view.diagnostics.length) list.innerHTML = "<li>no problems</li>";
  renderSchema();
  if (state.kind === "tool") renderForm(view.parameters);
  renderEditor();
}

function goToLine(line, col = 1) {
  const text = $("source");
  const lines = text.value.split("\n");
  const offset = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + Math.max(col - 1, 0);
  text.focus();
  text.setSelectionRange(offset, offset);
  text.scrollTop = Math.max((line - 5) * 20, 0);
  syncScroll();
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
  $("strict-label").hidden = key !== "responses";
  if (key === "responses" && $("strict").checked) key = "responses_strict";
  const schema = schemas[key];
  $("schema").textContent = schema ? JSON.stringify(schema, null, 2) : "(no schema: fix the errors above)";
}

// -- the arguments form: one field per parameter, sub-forms for objects and arrays ---------------
// The values typed are kept per tool file and parameter name (state.values), so a re-render after an
// edit, or a source that does not parse for a while, never loses them.
function resolveSchema(schema, defs) {
  let resolved = schema || {};
  for (let depth = 0; resolved.$ref && depth < 20; depth++) resolved = defs[resolved.$ref.split("/").pop()] || {};
  if (resolved.anyOf) {
    const options = resolved.anyOf.filter((option) => option.type !== "null");
    if (options.length === 1) {
      const rest = Object.fromEntries(Object.entries(resolved).filter(([key]) => key !== "anyOf"));
      return { ...resolveSchema(options[0], defs), ...rest, nullable: true };
    }
  }
  return resolved;
}

function fieldKind(schema) {
  if (schema.enum) return "enum";
  if (schema.type === "object" && schema.properties) return "object";
  if (schema.type === "array" && schema.items) return "array";
  return ["string", "number", "integer", "boolean"].includes(schema.type) ? schema.type : "json";
}

function fieldHint(schema, kind) {
  let types = schema.type || (schema.anyOf || []).map((s) => s.type || "object").join(" or ");
  if (kind === "enum") types = `one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  return [schema.description, types, kind === "json" ? "(JSON)" : ""].filter(Boolean).join(" · ");
}

function labelFor(name, isRequired) {
  const label = document.createElement(name ? "label" : "div");
  if (name) label.append(`${name} `);
  if (name && isRequired) label.insertAdjacentHTML("beforeend", '<span class="req">*</span> ');
  return label;
}

function scalarInput(schema, kind, isRequired) {
  let input;
  if (kind === "enum") {
    input = document.createElement("select");
    if (!isRequired) input.append(new Option("(not given)", ""));
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
    else if (kind === "number") input.step = "any";
    if (schema.minimum !== undefined) input.min = schema.minimum;
    if (schema.maximum !== undefined) input.max = schema.maximum;
    if (schema.minLength !== undefined) input.minLength = schema.minLength;
    if (schema.maxLength !== undefined) input.maxLength = schema.maxLength;
    if (schema.pattern) input.pattern = schema.pattern;
  }
  input.required = isRequired && kind !== "boolean";
  input.classList.add("value");
  return input;
}

function buildField(name, rawSchema, isRequired, value, defs) {
  const schema = resolveSchema(rawSchema, defs);
  const kind = fieldKind(schema);
  const wrap = document.createElement("div");
  wrap.className = `field ${kind}`;
  wrap.dataset.name = name;
  wrap.dataset.kind = kind;
  wrap.dataset.required = isRequired ? "1" : "";
  const given = value !== undefined ? value : schema.default;
  if (kind === "object" || kind === "array") {
    const box = document.createElement("fieldset");
    const legend = document.createElement("legend");
    legend.append(labelFor(name || "item", isRequired));
    box.append(legend);
    if (kind === "object") {
      const required = new Set(schema.required || []);
      const values = given && typeof given === "object" ? given : {};
      for (const [sub, subSchema] of Object.entries(schema.properties)) {
        box.append(buildField(sub, subSchema, required.has(sub), values[sub], defs));
      }
    } else {
      const items = document.createElement("div");
      items.className = "items";
      for (const item of Array.isArray(given) ? given : []) items.append(arrayItem(schema.items, item, defs));
      const add = document.createElement("button");
      add.type = "button";
      add.className = "add-item";
      add.textContent = `+ add ${name || "item"}`;
      add.addEventListener("click", () => { items.append(arrayItem(schema.items, undefined, defs)); keepValues(); });
      box.append(items, add);
    }
    wrap.append(box);
  } else {
    const label = labelFor(name, isRequired);
    const input = scalarInput(schema, kind, isRequired);
    if (name) input.name = name;
    if (given !== undefined) setField(input, kind, given);
    label.append(input);
    wrap.append(label);
  }
  const hint = fieldHint(schema, kind);
  if (hint) wrap.insertAdjacentHTML("beforeend", `<small>${escapeHtml(hint)}</small>`);
  return wrap;
}

function arrayItem(itemSchema, value, defs) {
  const row = document.createElement("div");
  row.className = "item";
  row.append(buildField("", itemSchema, true, value, defs));
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "remove-item";
  remove.textContent = "remove";
  remove.addEventListener("click", () => { row.remove(); keepValues(); });
  row.append(remove);
  return row;
}

function renderForm(parameters) {
  const form = $("form");
  $("form-note").hidden = Boolean(parameters) || !form.children.length;
  if (!parameters) return;  // the code does not parse: the form stays as it is, with its values
  const values = state.values[state.path] || {};
  form.replaceChildren();
  state.parameters = parameters;
  const required = new Set(parameters.required || []);
  const fields = Object.entries(parameters.properties || {});
  if (!fields.length) form.innerHTML = "<p class='hint'>This tool takes no arguments.</p>";
  for (const [name, schema] of fields) {
    form.append(buildField(name, schema, required.has(name), values[name], parameters.$defs || {}));
  }
}

function setField(input, kind, value) {
  if (kind === "boolean") input.checked = Boolean(value);
  else if (kind === "enum" || kind === "json") input.value = JSON.stringify(value);
  else input.value = value === null ? "" : String(value);
}

// [given, value] of one field; a field left empty is not given (an object whose fields are all empty too)
function fieldValue(wrap, lenient) {
  const kind = wrap.dataset.kind, name = wrap.dataset.name || "item";
  if (kind === "object") {
    const value = {};
    for (const child of wrap.querySelectorAll(":scope > fieldset > .field")) {
      const [given, sub] = fieldValue(child, lenient);
      if (given) value[child.dataset.name] = sub;
    }
    return [Object.keys(value).length > 0 || wrap.dataset.required === "1", value];
  }
  if (kind === "array") {
    const rows = wrap.querySelectorAll(":scope > fieldset > .items > .item > .field");
    const value = [...rows].map((row) => fieldValue(row, lenient)[1]);
    return [value.length > 0, value];
  }
  const input = wrap.querySelector(".value");
  if (kind === "boolean") return [true, input.checked];
  if (input.value === "") return [false, undefined];
  if (kind === "number" || kind === "integer") return [true, Number(input.value)];
  if (kind !== "enum" && kind !== "json") return [true, input.value];
  try {
    return [true, JSON.parse(input.value)];
  } catch (error) {
    if (lenient) return [false, undefined];
    throw new Error(`${name}: not valid JSON`);
  }
}

function formArgs(lenient = false) {
  const args = {};
  for (const wrap of $("form").querySelectorAll(":scope > .field")) {
    const [given, value] = fieldValue(wrap, lenient);
    if (given) args[wrap.dataset.name] = value;
  }
  return args;
}

function keepValues() {
  if (state.kind === "tool" && state.path) state.values[state.path] = formArgs(true);
}

function currentArgs() {
  if ($("raw-toggle").checked) return JSON.parse($("raw-args").value || "{}");
  if (!$("form").reportValidity()) throw new Error("some arguments do not fit the schema (see the form)");
  return formArgs();
}

// -- run, diff, timeline -----------------------------------------------------------------------
async function run() {
  if (state.busy) return;
  if (!state.view) await refresh();  // the file was just opened: its form is not there yet
  let args, stateJson;
  try {
    args = currentArgs();
    stateJson = JSON.parse($("state-json").value || "{}");
  } catch (error) {
    status(`arguments or state: ${error.message}`);
    return;
  }
  const context = { state: stateJson, user_content: { role: "user", parts: [{ text: $("user-message").value }] } };
  const result = await busy("running…", () => api("/api/run", { source: $("source").value, args, context, edits: edited() }));
  showResult(result);
  state.session = result.session;
  await loadTimeline();
}

// Run work with Run and Run turn disabled and Cancel shown.
async function busy(text, work) {
  state.busy = true;
  for (const id of ["run", "run-turn"]) $(id).disabled = true;
  for (const id of ["cancel", "cancel-turn"]) $(id).hidden = false;
  status(text);
  try {
    return await work();
  } finally {
    state.busy = false;
    for (const id of ["run", "run-turn"]) $(id).disabled = false;
    for (const id of ["cancel", "cancel-turn"]) $(id).hidden = true;
    status("");
  }
}

async function cancel() {
  const { cancelled } = await api("/api/cancel", {});
  status(cancelled ? "cancelled: the worker was killed" : "nothing was running");
}

function showResult(result) {
  $("result").hidden = false;
  $("result-status").textContent = result.success ? "ok" : "failed";
  $("result-status").className = result.success ? "ok" : "failed";
  $("duration").textContent = `${result.duration_ms} ms` + (result.faked ? ", faked" : "") +
    (result.replaced_by ? `, output from ${result.replaced_by}` : "");
  $("output").textContent = result.success ? JSON.stringify(result.output, null, 2) : "";
  $("output").hidden = !result.success;
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
  if (state.busy) return;
  const path = state.path === NEW_TURN ? null : state.path;
  const result = await busy("running the turn…", () => api("/api/turn", { path, script: $("source").value, edits: edited() }));
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
    const named = (kind) => state.files.filter((f) => f.kind === kind).map((f) => f.relative || f.path);
    if (named("callbacks").length) script.callbacks = named("callbacks");
    if (named("fakes").length) script.fakes = named("fakes");
  }
  return JSON.stringify(script, null, 2) + "\n";
}

// -- chat with a model ------------------------------------------------------------------------
// Each turn's events (requests, responses, callbacks, tool calls, transfers, replies) in a timeline
// whose items expand; the key lives in this page's memory only (never stored).
function chatSettings() {
  return {
    model: $("chat-model").value.trim(),
    base_url: $("chat-base-url").value.trim(),
    api_key: $("chat-key").value,
    agent: $("chat-agent").value || null,
  };
}

const CHAT_SUMMARY = {
  request: (d) => `request to the model (${(d.request.messages || []).length} messages, ${(d.request.tools || []).length} tools)`,
  response: (d) => (d.message.tool_calls || []).length ? `model calls ${d.message.tool_calls.map((c) => c.function.name).join(", ")}` : "model answers",
  callback: (d) => `${d.callback}${d.output ? " answered" : ""}`,
  tool_call: (d) => `${d.tool}(${typeof d.args === "string" ? d.args : JSON.stringify(d.args)}) → ${d.success === false ? "failed" : "ok"}`,
  tool_result: (d) => `${d.tool} finished`,
  transfer: (d) => `transfer: ${d.from} → ${d.to}`,
  end_session: () => "end_session: the conversation ended",
  guardrail: (d) => `guardrail: ${d.reason}`,
  reply: (d) => d.text,
  note: (d) => d.text,
};

function chatItem(kind, agent, summary, detail) {
  const li = document.createElement("li");
  li.className = `chat-${kind}`;
  const box = document.createElement("details");
  const head = document.createElement("summary");
  if (agent) head.insertAdjacentHTML("beforeend", `<span class="badge">${escapeHtml(agent)}</span> `);
  head.append(summary);
  box.append(head);
  if (detail !== undefined) {
    const body = document.createElement("pre");
    body.textContent = JSON.stringify(detail, null, 2);
    box.append(body);
  }
  li.append(box);
  return li;
}

function showChatTurn(turn) {
  const log = $("chat-log");
  log.append(chatItem("user", "you", turn.user));
  for (const event of turn.events) {
    const describe = CHAT_SUMMARY[event.kind] || (() => event.kind);
    const changed = deltaKeys(event.state_delta);
    const summary = describe(event) + (changed.length ? `  Δ ${changed.join(", ")}` : "");
    log.append(chatItem(event.kind, event.agent, summary, event));
  }
  if (turn.error) log.append(chatItem("error", "", errorText(turn.error), turn.error));
  if (turn.reply && !turn.events.some((e) => e.kind === "reply")) log.append(chatItem("reply", turn.agent, turn.reply));
  log.lastElementChild && log.lastElementChild.scrollIntoView({ block: "nearest" });
}

async function sendChat() {
  const text = $("chat-text").value;
  if (!text.trim() || state.busy) return;
  const turn = await busy("the model is answering…", () => api("/api/chat", { text, ...chatSettings(), edits: edited() }));
  $("chat-text").value = "";
  showChatTurn(turn);
  state.session = turn.session;
  await loadTimeline();
}

async function resetChat() {
  await api("/api/chat/reset", {});
  $("chat-log").replaceChildren();
  status("a new conversation starts with the next message");
}

// -- files -------------------------------------------------------------------------------------
function showPanes() {
  $("try").hidden = state.kind !== "tool";
  $("hooks-pane").hidden = state.kind !== "callbacks" && state.kind !== "fakes";
  $("turn-pane").hidden = state.kind !== "turn";
  $("schema-box").hidden = state.kind !== "tool";
}

function show(path, kind, text) {
  if (path !== state.path) $("form").replaceChildren();  // the next check renders this file's form
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
  state.loaded[path] = state.base[path] = source;
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
    $("chat-agent-label").hidden = !(app.agents || []).length;
    $("chat-agent").replaceChildren(...(app.agents || []).map((name) => new Option(name, name, name === app.agent, name === app.agent)));
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
    state.loaded[path] = state.buffers[path] = state.base[path] = source;
    $("source").value = source;
    markDirty();
    schedule();
    status(`reloaded ${path}: it changed on disk`);
  } else {
    $("disk-text").textContent = "This file changed on disk; your unsaved edits are kept (Save asks before overwriting it).";
    $("disk-note").hidden = false;
    status(`${path} changed on disk`);
    state.loaded[path] = source;
    markDirty();
  }
}

async function save(force = false) {
  const path = state.path, source = $("source").value;
  const file = state.files.find((f) => f.path === path);
  if ($("save").disabled || !file) return;
  if (file.kind !== "turn" && state.view && state.view.parses === false && !force &&
      !confirm(`${path} does not parse (see Diagnostics). Save it anyway?`)) return;
  try {
    await api("/api/save", { path, source, expected: state.base[path], force });
  } catch (error) {
    if (!error.message.startsWith("conflict:")) throw error;
    if (!confirm(`${path} changed on disk since you opened it. Overwrite it with your version?`)) {
      status("not saved: the file changed on disk (Load the disk version, or Save again to overwrite)");
      return;
    }
    await api("/api/save", { path, source, force: true });
  }
  status(`saved ${path}`);
  state.loaded[path] = state.buffers[path] = state.base[path] = source;
  $("disk-note").hidden = true;
  markDirty();
}

function renderFormFromRaw() {
  let args;
  try { args = JSON.parse($("raw-args").value || "{}"); } catch (error) { return; }
  state.values[state.path] = args;
  renderForm(state.parameters);
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
  $("form").addEventListener("submit", (event) => event.preventDefault());
  $("form").addEventListener("input", keepValues);
  $("form").addEventListener("change", keepValues);
  $("run").addEventListener("click", () => run().catch(report));
  $("chat-send").addEventListener("click", () => sendChat().catch(report));
  $("chat-reset").addEventListener("click", () => resetChat().catch(report));
  $("chat-text").addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      event.stopPropagation();
      sendChat().catch(report);
    }
  });
  for (const id of ["cancel", "cancel-turn"]) $(id).addEventListener("click", () => cancel().catch(report));
  document.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey)) return;
    if (event.key === "Enter") {
      event.preventDefault();
      (state.kind === "turn" ? runTurn() : state.kind === "tool" ? run() : Promise.resolve()).catch(report);
    } else if (event.key === "s") {
      event.preventDefault();
      save().catch(report);
    }
  });
  $("run-turn").addEventListener("click", () => runTurn().catch(report));
  $("new-turn").addEventListener("click", newTurn);
  $("reset").addEventListener("click", () => api("/api/reset", { session: state.session }).then(loadTimeline).catch(report));
  $("save").addEventListener("click", () => save().catch(report));
  $("load-disk").addEventListener("click", () => {
    state.buffers[state.path] = state.base[state.path] = state.loaded[state.path];
    show(state.path, state.kind, state.loaded[state.path]);
    status(`loaded ${state.path} from disk`);
  });
}

wire();
loadFiles().then(loadTimeline).catch((e) => status(e.message));
setInterval(() => watchFile().catch((e) => status(e.message)), 1500);
